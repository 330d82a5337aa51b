/**
 * Fault injection (`SIM_LATENCY_MS`, `SIM_FAULT_RATE`, `POST /__sim/config`): every API request
 * waits the latency, then a share of them fail the way a real upstream's front fails: half with
 * a plain-text 503, half with the connection dropped before any answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendText } from './io.js';

/** The fault settings in force (read on every request, so a change applies at once). */
export interface FaultSettings {
  readonly latencyMs: number;
  /** 0..1. */
  readonly faultRate: number;
}

/**
 * Waits the latency, then fails the request with probability `faultRate` (drawn from `random`).
 * True when it failed the request: the caller answers nothing more.
 */
export async function delayOrFail(settings: FaultSettings, random: () => number, request: IncomingMessage, response: ServerResponse): Promise<boolean> {
  if (settings.latencyMs > 0) await sleep(settings.latencyMs);
  if (!(settings.faultRate > 0 && random() < settings.faultRate)) return false;
  if (random() < 0.5) {
    sendText(response, 503, 'Service Unavailable');
  } else {
    request.socket.destroy();
  }
  return true;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
