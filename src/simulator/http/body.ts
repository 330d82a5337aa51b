/**
 * A request's body: read whole (up to a limit, beyond which it is a 400), then parsed as JSON.
 * A body that is not JSON is not thrown: the router rejects it where the operation is known, so
 * the rejection is counted under that operation.
 */
import type { IncomingMessage } from 'node:http';
import { SimBadRequest } from '../errors.js';

const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** The body's bytes; a `SimBadRequest` past 10 MiB. */
export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new SimBadRequest('Request body too large');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** The parsed body (`{}` when empty), or why it is not JSON. */
export function parseBody(raw: Buffer): { body: unknown; error: string | null } {
  if (raw.length === 0) return { body: {}, error: null };
  try {
    return { body: JSON.parse(raw.toString('utf8')), error: null };
  } catch (error) {
    return { body: {}, error: `Malformed JSON body: ${(error as Error).message}` };
  }
}
