/**
 * The `node:http` reading and writing every part of the simulator's server shares: a request
 * header's first value, and answers in JSON (`encodeJson`, so decimals keep the spec's `N.0`) or
 * plain text.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JobAnswer } from '../contracts.js';
import { encodeJson } from '../format.js';

/** A request header's value (the first, when it was sent more than once). */
export function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function sendJson(response: ServerResponse, status: number, body: Record<string, unknown>): void {
  const text = encodeJson(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

export function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** A job's answer (submitted or polled), JSON or text as the job runner decided. */
export function sendAnswer(response: ServerResponse, answer: JobAnswer): void {
  if ('json' in answer) sendJson(response, answer.status, answer.json);
  else sendText(response, answer.status, answer.text);
}
