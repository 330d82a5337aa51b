/**
 * @generated SignedSource<<540c828e12d9eda5ed2446d620f872fb>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type documentsCbtTasksQuery$variables = Record<PropertyKey, never>;
export type documentsCbtTasksQuery$data = {
  readonly cbtTasks: {
    readonly nodes: ReadonlyArray<{
      readonly id: string;
      readonly name: string | null | undefined;
      readonly uuid: any;
    } | null | undefined>;
  } | null | undefined;
};
export type documentsCbtTasksQuery = {
  response: documentsCbtTasksQuery$data;
  variables: documentsCbtTasksQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "alias": null,
    "args": [
      {
        "kind": "Literal",
        "name": "first",
        "value": 100
      }
    ],
    "concreteType": "CbtTaskConnection",
    "kind": "LinkedField",
    "name": "cbtTasks",
    "plural": false,
    "selections": [
      {
        "alias": null,
        "args": null,
        "concreteType": "CbtTask",
        "kind": "LinkedField",
        "name": "nodes",
        "plural": true,
        "selections": [
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "id",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "uuid",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "name",
            "storageKey": null
          }
        ],
        "storageKey": null
      }
    ],
    "storageKey": "cbtTasks(first:100)"
  }
];
return {
  "fragment": {
    "argumentDefinitions": [],
    "kind": "Fragment",
    "metadata": null,
    "name": "documentsCbtTasksQuery",
    "selections": (v0/*:: as any*/),
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [],
    "kind": "Operation",
    "name": "documentsCbtTasksQuery",
    "selections": (v0/*:: as any*/)
  },
  "params": {
    "cacheID": "544fbf4ceb0d252b6e5ff2445e6ba714",
    "id": null,
    "metadata": {},
    "name": "documentsCbtTasksQuery",
    "operationKind": "query",
    "text": "query documentsCbtTasksQuery {\n  cbtTasks(first: 100) {\n    nodes {\n      id\n      uuid\n      name\n    }\n  }\n}\n"
  }
};
})();

(node as any).hash = "686d30d8c703fc59067a7b6fc99529e6";

export default node;
