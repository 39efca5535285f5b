/**
 * The one composition root of the replaceable services: the event sink, the analytics engine, the
 * outbound bus and delivery queue, the Secrets Manager client of the origin secret, the clocks of
 * keys and rate limits, the webhook retry schedule and the webhook URL policy.
 *
 * A Lambda entry provides nothing: each service is then its production one, built on first use
 * from the validated configuration by the function that hands it out (`getEventSink` in
 * shared/events/event-sink.ts, `getAnalyticsEngine`, `getEventBus`, `getDeliveryQueue`,
 * `retryDelayAfter`, ...). Each production builder stays beside that function, so a Lambda
 * bundles only the AWS clients of the services it uses, and this module imports no implementation
 * at all (types only): nothing here can pull a local stand-in into a Lambda bundle.
 *
 * Another composition root (the local stack, the admin CLI pointed at it, the test environment)
 * calls `provideServices` once with its own (shared/local/local-services.ts builds the local ones);
 * tests replace one service with `provideServices` and put the production one back with
 * `resetServices`.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { AnalyticsEngine } from '@shared/analytics/query/analytics-engine';
import { getConfig, type Config } from '@shared/config/config';
import type { EventSink } from '@shared/events/event-sink-interface';
import type { DeliveryQueue } from '@shared/outbound/delivery-queue-interface';
import type { EventBus } from '@shared/outbound/event-bus-interface';

/** The clocks (ms) that tests pin independently of each other. */
export interface Clocks {
  /** Key and session expiry, failed-auth windows, a key's last use (shared/auth/). */
  keys: () => number;
  /** The rate limiter's one-minute windows (shared/rate-limits/rate-limiter.ts). */
  rateLimit: () => number;
}

export interface Services {
  /** Where every recorded event goes: the event stream deployed, the local stream's stand-in locally. */
  eventSink: EventSink;
  /** Athena deployed (or 503 analytics_unavailable when not configured), DuckDB over the local lake. */
  analyticsEngine: AnalyticsEngine;
  /** The outbound events' EventBridge bus; an in-memory stand-in locally. */
  eventBus: EventBus;
  /** The webhook delivery queue: SQS deployed, an in-process stand-in locally. */
  deliveryQueue: DeliveryQueue;
  /** The client that reads the origin secret's values (a new one starts with a cold cache). */
  originSecretClient: SecretsManagerClient;
  clocks: Clocks;
  /** The waits between webhook delivery attempts (ms): hours deployed, seconds locally. */
  retryDelaysMs: readonly number[];
  /** Whether webhook URLs may be http://127.0.0.1 and http://localhost (the local stack only). */
  loopbackWebhooks: boolean;
}

/** A service built on first use (from the configuration of that moment) rather than given built. */
export class Lazy<T> {
  constructor(readonly build: () => T) {}
}

/** `provideServices({ eventSink: lazy(() => ...) })`: built when first asked for, not when provided. */
export const lazy = <T>(build: () => T): Lazy<T> => new Lazy(build);

type Replaceable = Exclude<keyof Services, 'clocks'>;

/** What a composition root or a test provides: any service, built or lazy; any clock. */
export type ServiceOverrides = { [K in Replaceable]?: Services[K] | Lazy<Services[K]> } & {
  clocks?: Partial<Clocks>;
};

const productionClocks: Clocks = { keys: () => Date.now(), rateLimit: () => Date.now() };

let provided: { [K in Replaceable]?: Services[K] | Lazy<Services[K]> } = {};
let clocks: Clocks = { ...productionClocks };
const built = new Map<Replaceable, { value: unknown; config?: Config }>();

/**
 * The services from now on: each one named replaces the current one (a Lazy is built on first use;
 * undefined is the production one again); clocks are replaced one by one. The others stay as they are.
 */
export const provideServices = (overrides: ServiceOverrides): void => {
  const { clocks: clockOverrides = {}, ...rest } = overrides;
  clocks = {
    keys: clockOverrides.keys ?? ('keys' in clockOverrides ? productionClocks.keys : clocks.keys),
    rateLimit:
      clockOverrides.rateLimit ?? ('rateLimit' in clockOverrides ? productionClocks.rateLimit : clocks.rateLimit),
  };
  provided = { ...provided, ...rest };
  for (const name of Object.keys(rest) as Replaceable[]) built.delete(name);
};

/**
 * For tests: the named services back to their production ones (built again on next use), or every
 * service when none is named.
 */
export const resetServices = (...names: Array<keyof Services>): void => {
  if (names.length === 0) {
    clocks = { ...productionClocks };
    provided = {};
    built.clear();
    return;
  }
  if (names.includes('clocks')) clocks = { ...productionClocks };
  provided = Object.fromEntries(Object.entries(provided).filter(([name]) => !names.includes(name as keyof Services)));
  for (const name of names) if (name !== 'clocks') built.delete(name);
};

/**
 * The service `name`: the one provided, else the production one (`production()`, given by the one
 * function that hands this service out). Built once and kept; with `perConfig`, built again when
 * the configuration is read again (resetConfig, provideConfig).
 */
export const service = <K extends Replaceable>(
  name: K,
  production: () => Services[K],
  options: { perConfig?: boolean } = {},
): Services[K] => {
  const given = provided[name] as Services[K] | Lazy<Services[K]> | undefined;
  if (given !== undefined && !(given instanceof Lazy)) return given;
  const config = options.perConfig ? getConfig() : undefined;
  const hit = built.get(name);
  if (hit && hit.config === config) return hit.value as Services[K];
  const value = given ? given.build() : production();
  built.set(name, { value, config });
  return value;
};

/** The time (ms) on one of the clocks. */
export const clockNow = (clock: keyof Clocks): number => clocks[clock]();
