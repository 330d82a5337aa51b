/**
 * The options `createSimulator` takes, as types alone: the simulator's settings
 * (`src/config/simulator.ts`) read into them without reaching any of the simulator's runtime.
 */

/** Which tenants churn: the first, the second, or both (each at the full rate). */
export type ChurnTenants = 'first' | 'second' | 'all';

/** A parsed `SIM_CHURN`. */
export interface ChurnSpec {
  /** Changes per second, per churning tenant; 0 stops the timer. */
  rate: number;
  tenants: ChurnTenants;
}

/** Credentials the caller fixed (`SIM_SESSION`, ...); the rest are derived from the seed. */
export interface TenantOverrides {
  session?: string | undefined;
  token?: string | undefined;
  tenantId?: string | undefined;
}

/** What the simulator plays; `SIMULATOR_DEFAULTS` (`server.ts`) holds the default of each. */
export interface SimulatorOptions {
  /** Seed of the generated estate and of the derived credentials. */
  seed: number;
  /** Hosts of the first tenant (the second gets a tenth, at least 2). */
  hosts: number;
  /** VMs of the first tenant (the second gets a tenth, at least 5). */
  vms: number;
  /** How long an asynchronous call runs before it completes. */
  asyncDelayMs: number;
  /** Added before every API answer. */
  latencyMs: number;
  /** Fraction (0..1) of API requests that fail: half 503 plain text, half a dropped connection. */
  faultRate: number;
  /** Never deliver webhooks. */
  dropWebhooks: boolean;
  /** Pause between webhook delivery attempts. */
  webhookRetryMs: number;
  /** Attempts after the first failed webhook delivery. */
  webhookRetries: number;
  /** IANA zone of the timestamp text. */
  timeZone: string;
  /** How long a cursor of the cursor family stays valid. */
  cursorTtlMs: number;
  /** First tenant's fixed credentials (the rest derived from the seed). */
  first: TenantOverrides;
  /** Second tenant's fixed credentials. */
  second: TenantOverrides;
  /** Most journal entries kept. */
  journalLimit: number;
  /** Source of randomness for fault injection. */
  random: () => number;
  /** `SIM_CHURN`: changes per second the estate makes by itself, and in which tenants (none by default). */
  churn: ChurnSpec;
  /**
   * The upstream release it plays (`SIM_VERSION`): operations newer than it answer 404, fields
   * newer than it are absent from every answer, newer write parameters are ignored.
   */
  version: string;
}
