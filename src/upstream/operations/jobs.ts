/**
 * The job poll (spec: Events): `GET api-jobs/{jobUuid}` at the polling address a 202 answer
 * gives. Not an operation of its own in the spec's list; its answer is the finished operation's
 * body, which that operation's decoder reads.
 */
import { defineOperation } from './define.js';

export const PollJob = defineOperation('PollJob', 'GET api-jobs/{jobUuid}', {
  since: null,
  decode: (body) => body,
});
