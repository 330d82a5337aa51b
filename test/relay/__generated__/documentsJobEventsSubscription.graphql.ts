/**
 * @generated SignedSource<<dbb7433a2dd4c61d91ce24514c8b1148>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type JobStatus = "FAILED" | "RUNNING" | "SUCCEEDED" | "%future added value";
export type documentsJobEventsSubscription$variables = Record<PropertyKey, never>;
export type documentsJobEventsSubscription$data = {
  readonly jobEvents: {
    readonly id: string;
    readonly status: JobStatus;
  };
};
export type documentsJobEventsSubscription = {
  response: documentsJobEventsSubscription$data;
  variables: documentsJobEventsSubscription$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "alias": null,
    "args": null,
    "concreteType": "Job",
    "kind": "LinkedField",
    "name": "jobEvents",
    "plural": false,
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
        "name": "status",
        "storageKey": null
      }
    ],
    "storageKey": null
  }
];
return {
  "fragment": {
    "argumentDefinitions": [],
    "kind": "Fragment",
    "metadata": null,
    "name": "documentsJobEventsSubscription",
    "selections": (v0/*:: as any*/),
    "type": "Subscription",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [],
    "kind": "Operation",
    "name": "documentsJobEventsSubscription",
    "selections": (v0/*:: as any*/)
  },
  "params": {
    "cacheID": "188676b9ff3a890b5ff243685313498e",
    "id": null,
    "metadata": {},
    "name": "documentsJobEventsSubscription",
    "operationKind": "subscription",
    "text": "subscription documentsJobEventsSubscription {\n  jobEvents {\n    id\n    status\n  }\n}\n"
  }
};
})();

(node as any).hash = "781daaae02afbe5f9dca5f845926affe";

export default node;
