/**
 * Fields every connection has besides Relay's `edges`, `nodes` and `pageInfo`.
 */
import { builder } from '../../builder.js';

builder.globalConnectionField('totalCount', (t) =>
  t.exposeInt('totalCount', {
    nullable: false,
    description: 'How many records the whole collection holds (with these filters), as the upstream counts them now.',
    // A page resumed from a position asks for its count only when selected, so it may be a
    // promise: unmarked, the field keeps Pothos' own resolver, whose promise every engine awaits
    // (graphql-jit's plain property read would not; see `builder.ts`).
    extensions: { pothosExposedField: null },
  }),
);
