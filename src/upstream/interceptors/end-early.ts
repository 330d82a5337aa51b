/**
 * Ends a dispatch that never reached a connection (its queue was full, its deadline passed while
 * it waited): there is no controller to hand over, so the handler gets one with nothing left to
 * control, already aborted with the error, as undici's own handlers get none in that case.
 */
import type { Dispatcher } from 'undici';

export function endEarly(handler: Dispatcher.DispatchHandler, error: Error): void {
  const ended: Dispatcher.DispatchController = { aborted: true, paused: false, reason: error, abort() {}, pause() {}, resume() {} };
  handler.onResponseError?.(ended, error);
}
