/**
 * @generated SignedSource<<d7770f2b1a1264c0c791f760aaa1ea8a>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type DeleteMode = "ENFORCING" | "PERMISSIVE" | "%future added value";
export type JobStatus = "FAILED" | "RUNNING" | "SUCCEEDED" | "%future added value";
export type UserErrorCode = "CONFLICT" | "INVALID_STATE" | "NOT_FOUND" | "OPERATION_FAILED" | "OTHER" | "PERMISSION_DENIED" | "RESULT_LOST" | "TIMEOUT" | "UNAUTHENTICATED" | "UPSTREAM_INTERNAL" | "VALIDATION" | "%future added value";
export type DeleteCbtTaskInput = {
  async?: boolean | null | undefined;
  clientMutationId?: string | null | undefined;
  deleteMode?: DeleteMode | null | undefined;
  force?: boolean | null | undefined;
  systemTags?: ReadonlyArray<string> | null | undefined;
  userTags?: ReadonlyArray<string> | null | undefined;
  uuid: any;
};
export type documentsDeleteCbtTaskMutation$variables = {
  input: DeleteCbtTaskInput;
};
export type documentsDeleteCbtTaskMutation$data = {
  readonly deleteCbtTask: {
    readonly deletedCbtTaskId: string | null | undefined;
    readonly status: JobStatus;
    readonly userErrors: ReadonlyArray<{
      readonly code: UserErrorCode;
      readonly field: ReadonlyArray<string> | null | undefined;
      readonly message: string;
    }>;
  } | null | undefined;
};
export type documentsDeleteCbtTaskMutation = {
  response: documentsDeleteCbtTaskMutation$data;
  variables: documentsDeleteCbtTaskMutation$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "input"
  }
],
v1 = [
  {
    "kind": "Variable",
    "name": "input",
    "variableName": "input"
  }
],
v2 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "status",
  "storageKey": null
},
v3 = {
  "alias": null,
  "args": null,
  "concreteType": "UserError",
  "kind": "LinkedField",
  "name": "userErrors",
  "plural": true,
  "selections": [
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "code",
      "storageKey": null
    },
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "field",
      "storageKey": null
    },
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "message",
      "storageKey": null
    }
  ],
  "storageKey": null
},
v4 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "deletedCbtTaskId",
  "storageKey": null
};
return {
  "fragment": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "documentsDeleteCbtTaskMutation",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": "DeleteCbtTaskPayload",
        "kind": "LinkedField",
        "name": "deleteCbtTask",
        "plural": false,
        "selections": [
          (v2/*:: as any*/),
          (v3/*:: as any*/),
          (v4/*:: as any*/)
        ],
        "storageKey": null
      }
    ],
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "documentsDeleteCbtTaskMutation",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": "DeleteCbtTaskPayload",
        "kind": "LinkedField",
        "name": "deleteCbtTask",
        "plural": false,
        "selections": [
          (v2/*:: as any*/),
          (v3/*:: as any*/),
          (v4/*:: as any*/),
          {
            "alias": null,
            "args": null,
            "filters": null,
            "handle": "deleteRecord",
            "key": "",
            "kind": "ScalarHandle",
            "name": "deletedCbtTaskId"
          }
        ],
        "storageKey": null
      }
    ]
  },
  "params": {
    "cacheID": "49ba5795d498e48df0adad5a00c8bb16",
    "id": null,
    "metadata": {},
    "name": "documentsDeleteCbtTaskMutation",
    "operationKind": "mutation",
    "text": "mutation documentsDeleteCbtTaskMutation(\n  $input: DeleteCbtTaskInput!\n) {\n  deleteCbtTask(input: $input) {\n    status\n    userErrors {\n      code\n      field\n      message\n    }\n    deletedCbtTaskId\n  }\n}\n"
  }
};
})();

(node as any).hash = "a60bc180b73d46fa68bb9e22d44896a0";

export default node;
