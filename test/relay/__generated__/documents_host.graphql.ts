/**
 * @generated SignedSource<<1596b6d16f6446909a01e742b36067ef>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
import { FragmentRefs } from "relay-runtime";
export type documents_host$data = {
  readonly id: string;
  readonly name: string | null | undefined;
  readonly nqn: string | null | undefined;
  readonly " $fragmentType": "documents_host";
};
export type documents_host$key = {
  readonly " $data"?: documents_host$data;
  readonly " $fragmentSpreads": FragmentRefs<"documents_host">;
};

import documentsHostRefetchQuery_graphql from './documentsHostRefetchQuery.graphql';

const node: ReaderFragment = {
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": {
    "refetch": {
      "connection": null,
      "fragmentPathInResult": [
        "node"
      ],
      "operation": documentsHostRefetchQuery_graphql,
      "identifierInfo": {
        "identifierField": "id",
        "identifierQueryVariableName": "id"
      }
    }
  },
  "name": "documents_host",
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
};

(node as any).hash = "5e8ed37878f30c6e67943fc6508bf9c1";

export default node;
