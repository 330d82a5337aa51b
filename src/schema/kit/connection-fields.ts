/**
 * Fields every connection has besides Relay's `edges`, `nodes` and `pageInfo`.
 */
import { builder } from '../../builder.js';

builder.globalConnectionField('totalCount', (t) =>
  t.exposeInt('totalCount', {
    nullable: false,
    description: 'How many records the whole collection holds (with these filters), as the upstream counts them now.',
  }),
);
