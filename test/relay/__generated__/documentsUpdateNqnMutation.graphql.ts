/**
 * @generated SignedSource<<579caffff0b0f1219dc2c9c12e1d4860>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type JobStatus = "FAILED" | "RUNNING" | "SUCCEEDED" | "%future added value";
export type UpdateHostNqnInput = {
  async?: boolean | null | undefined;
  clientMutationId?: string | null | undefined;
  nqn: string;
  systemTags?: ReadonlyArray<string> | null | undefined;
  userTags?: ReadonlyArray<string> | null | undefined;
  uuid: any;
};
export type documentsUpdateNqnMutation$variables = {
  input: UpdateHostNqnInput;
};
export type documentsUpdateNqnMutation$data = {
  readonly updateHostNqn: {
    readonly host: {
      readonly id: string;
      readonly nqn: string | null | undefined;
    } | null | undefined;
    readonly job: {
      readonly id: string;
      readonly status: JobStatus;
    } | null | undefined;
  } | null | undefined;
};
export type documentsUpdateNqnMutation = {
  response: documentsUpdateNqnMutation$data;
  variables: documentsUpdateNqnMutation$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "input"
  }
],
v1 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "id",
  "storageKey": null
},
v2 = [
  {
    "alias": null,
    "args": [
      {
        "kind": "Variable",
        "name": "input",
        "variableName": "input"
      }
    ],
    "concreteType": "UpdateHostNqnPayload",
    "kind": "LinkedField",
    "name": "updateHostNqn",
    "plural": false,
    "selections": [
      {
        "alias": null,
        "args": null,
        "concreteType": "Job",
        "kind": "LinkedField",
        "name": "job",
        "plural": false,
        "selections": [
          (v1/*:: as any*/),
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "status",
            "storageKey": null
          }
        ],
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "concreteType": "Host",
        "kind": "LinkedField",
        "name": "host",
        "plural": false,
        "selections": [
          (v1/*:: as any*/),
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "nqn",
            "storageKey": null
          }
        ],
        "storageKey": null
      }
    ],
    "storageKey": null
  }
];
return {
  "fragment": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "documentsUpdateNqnMutation",
    "selections": (v2/*:: as any*/),
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "documentsUpdateNqnMutation",
    "selections": (v2/*:: as any*/)
  },
  "params": {
    "cacheID": "a102a785f09fd6185fcd75c7a9bbb4d8",
    "id": null,
    "metadata": {},
    "name": "documentsUpdateNqnMutation",
    "operationKind": "mutation",
    "text": "mutation documentsUpdateNqnMutation(\n  $input: UpdateHostNqnInput!\n) {\n  updateHostNqn(input: $input) {\n    job {\n      id\n      status\n    }\n    host {\n      id\n      nqn\n    }\n  }\n}\n"
  }
};
})();

(node as any).hash = "67d0f1c5fec846f0faed84eaab69bc53";

export default node;
