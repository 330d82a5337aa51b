/**
 * @generated SignedSource<<ba204f12edc3c9749d9f3c0c9229b0c6>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
import { FragmentRefs } from "relay-runtime";
export type documentsHostRefetchQuery$variables = {
  id: string;
};
export type documentsHostRefetchQuery$data = {
  readonly node: {
    readonly " $fragmentSpreads": FragmentRefs<"documents_host">;
  } | null | undefined;
};
export type documentsHostRefetchQuery = {
  response: documentsHostRefetchQuery$data;
  variables: documentsHostRefetchQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "id"
  }
],
v1 = [
  {
    "kind": "Variable",
    "name": "id",
    "variableName": "id"
  }
];
return {
  "fragment": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "documentsHostRefetchQuery",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": null,
        "kind": "LinkedField",
        "name": "node",
        "plural": false,
        "selections": [
          {
            "args": null,
            "kind": "FragmentSpread",
            "name": "documents_host"
          }
        ],
        "storageKey": null
      }
    ],
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "documentsHostRefetchQuery",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": null,
        "kind": "LinkedField",
        "name": "node",
        "plural": false,
        "selections": [
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "__typename",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "id",
            "storageKey": null
          },
          {
            "kind": "InlineFragment",
            "selections": [
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "name",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "nqn",
                "storageKey": null
              }
            ],
            "type": "Host",
            "abstractKey": null
          }
        ],
        "storageKey": null
      }
    ]
  },
  "params": {
    "cacheID": "57e40ba5a18e1d263e5cf1a5d0482e18",
    "id": null,
    "metadata": {},
    "name": "documentsHostRefetchQuery",
    "operationKind": "query",
    "text": "query documentsHostRefetchQuery(\n  $id: ID!\n) {\n  node(id: $id) {\n    __typename\n    ...documents_host\n    id\n  }\n}\n\nfragment documents_host on Host {\n  id\n  name\n  nqn\n}\n"
  }
};
})();

(node as any).hash = "5e8ed37878f30c6e67943fc6508bf9c1";

export default node;
