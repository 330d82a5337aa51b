/**
 * The fleet soak's bookkeeping: every job it started against what `jobCompleted` and each
 * `jobEvents` subscriber delivered of it, and every finished write against what each live list
 * showed of it.
 */
import { quantile } from './statistics.js';

/** A job a write started, and what its `jobCompleted` delivered. */
export interface StartedJob {
  readonly host: string;
  readonly sequence: number;
  deliveries: number;
  status: string | null;
}

export interface JobLedger {
  readonly size: number;
  /** Records a job a write started; its `jobCompleted` deliveries are counted on what it answers. */
  start(id: string, host: string, sequence: number): StartedJob;
  /** A `jobEvents` subscriber: call the answer with each job id it receives. */
  subscriber(): (id: string) => void;
  /** Whether every subscriber has received every job started so far (`id` alone when given). */
  everySeen(id?: string): boolean;
  summary(): {
    jobsStarted: number;
    jobStatuses: Record<string, number>;
    jobCompleted: { deliveredOnce: number; missing: number; doubled: number };
    jobEvents: { subscribers: number; seen: number; missing: number; doubled: number; unexpected: number };
  };
}

export function createJobLedger(): JobLedger {
  const jobs = new Map<string, StartedJob>();
  const subscribers: Map<string, number>[] = [];
  const sum = (values: Iterable<number>): number => [...values].reduce((total, value) => total + value, 0);
  return {
    get size() {
      return jobs.size;
    },
    start(id, host, sequence) {
      const job: StartedJob = { host, sequence, deliveries: 0, status: null };
      jobs.set(id, job);
      return job;
    },
    subscriber() {
      const seen = new Map<string, number>();
      subscribers.push(seen);
      return (id) => void seen.set(id, (seen.get(id) ?? 0) + 1);
    },
    everySeen(id) {
      const ids = id === undefined ? [...jobs.keys()] : [id];
      return subscribers.every((seen) => ids.every((one) => seen.has(one)));
    },
    summary() {
      const started = [...jobs.values()];
      const statuses: Record<string, number> = {};
      for (const job of started) statuses[job.status ?? 'none'] = (statuses[job.status ?? 'none'] ?? 0) + 1;
      return {
        jobsStarted: jobs.size,
        jobStatuses: statuses,
        jobCompleted: {
          deliveredOnce: started.filter((job) => job.deliveries === 1).length,
          missing: started.filter((job) => job.deliveries === 0).length,
          doubled: started.filter((job) => job.deliveries > 1).length,
        },
        jobEvents: {
          subscribers: subscribers.length,
          seen: sum(subscribers.map((seen) => sum(seen.values()))),
          missing: sum(subscribers.map((seen) => [...jobs.keys()].filter((id) => !seen.has(id)).length)),
          doubled: sum(subscribers.map((seen) => [...seen.values()].filter((count) => count > 1).length)),
          unexpected: sum(subscribers.map((seen) => [...seen.keys()].filter((id) => !jobs.has(id)).length)),
        },
      };
    },
  };
}

export interface LiveLedger {
  /** A live host list: call the answer with the hosts of each of its answers (`sequence`: what the NQN shown carries). */
  list(): (hosts: readonly { uuid: string; sequence: number }[]) => void;
  /** Every list opened so far has answered at least once. */
  everyAnswered(): boolean;
  /** A write that set `host` to `sequence` finished: every list must show it within the bound. */
  expect(host: string, sequence: number): void;
  /** Counts what was shown meanwhile, and as lost what is past the bound. */
  settle(): void;
  /** Writes some list has yet to show. */
  readonly awaited: number;
  readonly lost: number;
  summary(): { lists: number; answers: number; writesShown: number; lost: number; lagMs: { p50: number; p99: number; max: number }; boundMs: number };
}

interface LiveList {
  answers: number;
  shown: Map<string, number>;
  awaited: { host: string; sequence: number; at: number }[];
}

/** Live lists checked against finished writes: one not shown within `boundMs` of its `jobCompleted` is lost. */
export function createLiveLedger(boundMs: number): LiveLedger {
  const lists: LiveList[] = [];
  const lags: number[] = [];
  let shown = 0;
  let lost = 0;

  function settle(list: LiveList, now: number): void {
    list.awaited = list.awaited.filter((write) => {
      if ((list.shown.get(write.host) ?? 0) >= write.sequence) {
        shown += 1;
        lags.push(Math.max(0, now - write.at));
        return false;
      }
      if (now - write.at <= boundMs) return true;
      lost += 1;
      return false;
    });
  }

  return {
    list() {
      const list: LiveList = { answers: 0, shown: new Map(), awaited: [] };
      lists.push(list);
      return (hosts) => {
        list.answers += 1;
        for (const host of hosts) list.shown.set(host.uuid, host.sequence);
        settle(list, Date.now());
      };
    },
    everyAnswered: () => lists.every((list) => list.answers > 0),
    expect(host, sequence) {
      const at = Date.now();
      for (const list of lists) {
        list.awaited.push({ host, sequence, at });
        settle(list, at);
      }
    },
    settle() {
      for (const list of lists) settle(list, Date.now());
    },
    get awaited() {
      return lists.reduce((total, list) => total + list.awaited.length, 0);
    },
    get lost() {
      return lost;
    },
    summary: () => ({
      lists: lists.length,
      answers: lists.reduce((total, list) => total + list.answers, 0),
      writesShown: shown,
      lost,
      lagMs: { p50: quantile(lags, 0.5), p99: quantile(lags, 0.99), max: quantile(lags, 1) },
      boundMs,
    }),
  };
}
