import { startDynamoFaultProxy } from '@test/support/dynamodb-fault-proxy';
import { getEventSink } from '@shared/events/event-sink';
import { LOCAL_COUNTER_MAX_RETRY_MS } from '@shared/events/local-event-stream';
import { ORIGIN_VERIFY_HEADER, ORIGIN_VERIFY_VALUES_ENV } from '@shared/http/origin-verify';
import { apiEvent, importBundle, PHONE_UA, type BundledHandler } from './lambda-invoke';
import { Writable } from 'node:stream';
import { lambdaContext } from '@shared/local/local-server';
import { isStreamingHandler, type PreludeStream, type ResponsePrelude } from '@shared/local/lambda-streaming';
import { withFakeEventStream } from './fake-event-stream';
import { must } from './must';
import { percentile, round } from './stats';
import type { World } from './world';

/**
 * DynamoDB's per-key limits (1,000 write and 3,000 read units per second per item deployed)
 * scaled to 1/100, enforced by the proxy as DynamoDB enforces them. The tests use 1/20; the
 * bench goes further so that 10x the limit (100 clicks/s) is a rate this shared 2-core machine
 * really sustains in-process (the report shows the rate achieved).
 */
export const SCALED_KEY_LIMITS = { writeUnitsPerSecond: 10, readUnitsPerSecond: 30 } as const;
/** The hot link at 10x the scaled write limit (a click was one write unit on the link's item; reads: 1.7x). */
export const HOT_CLICKS_PER_SECOND = SCALED_KEY_LIMITS.writeUnitsPerSecond * 10;
/** The cold link, in the same run: under every limit, and never hot in an instance (redirect cache). */
export const COLD_CLICKS_PER_SECOND = 5;
/**
 * Simulated Lambda instances: each a fresh module instance of the built bundle (its own SDK
 * client and caches). Clicks go to them round robin at their scheduled time (open loop), so a
 * slow click does not hold the next ones back; unlike Lambda, an instance may then serve a few
 * at once. 10 instances put 10 hot clicks a second on each (hot for the redirect cache), and a
 * cold click on each every 2 s (never hot).
 */
export const INSTANCES = 10;

export interface HotLinkSide {
  sent: number;
  /** Answers that were not a 302, or a throw. */
  visitorErrors: number;
  /** Time until the visitor had the whole answer. */
  p50Ms: number;
  p99Ms: number;
  /** The invocation's duration (what Lambda bills; includes work after the answer). */
  durationP50Ms: number;
  durationP99Ms: number;
  /** `clicks` of the link through the API once counting settled (the visitors' clicks only). */
  counted: number;
}

export interface HotLinkResult {
  seconds: number;
  instances: number;
  limits: typeof SCALED_KEY_LIMITS;
  hotRate: number;
  coldRate: number;
  hot: HotLinkSide;
  cold: HotLinkSide;
  /** Calls the proxy answered with a throttling exception (every SDK attempt counts), by direction. */
  throttles: { total: number; read: number; write: number };
  /** DynamoDB calls the run made through the proxy. */
  dynamoCalls: number;
  /** How long the counts took to settle after the last click (the counter path's lag), ms. */
  settleMs: number;
  /** hot p99 / cold p99. */
  p99Ratio: number;
  /** Clicks per second the run really sent (all clicks over the time from the first to the last answer). */
  achievedPerSecond: number;
}

/** A response stream that notes when the visitor's answer was complete (the stream ended). */
class TimedStream extends Writable implements PreludeStream {
  prelude: ResponsePrelude = {};
  endedAt: number | undefined;
  constructor() {
    super();
    this.on('finish', () => (this.endedAt = performance.now()));
  }
  setPrelude(prelude: ResponsePrelude) {
    this.prelude = prelude;
  }
  override _write(_chunk: unknown, _encoding: BufferEncoding, callback: () => void) {
    callback();
  }
}

/**
 * One click: its status, the time until the visitor had the whole answer (a streaming handler
 * may keep working after it, recording the click) and the invocation's whole duration.
 */
const invokeTimed = async (handler: BundledHandler, event: ReturnType<typeof apiEvent>) => {
  const started = performance.now();
  if (isStreamingHandler(handler)) {
    const stream = new TimedStream();
    await handler(event, stream, lambdaContext({ handler: 'bench' }));
    const done = performance.now();
    return {
      status: stream.prelude.statusCode ?? 200,
      answeredMs: (stream.endedAt ?? done) - started,
      durationMs: done - started,
    };
  }
  const result = await handler(event, lambdaContext({ handler: 'bench' }));
  const done = performance.now();
  return { status: result?.statusCode ?? 0, answeredMs: done - started, durationMs: done - started };
};

/** What CloudFront adds on the way to an edge function: the viewer's host and the origin-verify secret the local stack set. */
const viaFrontDoor = (domain: string): Record<string, string> => ({
  host: domain,
  'x-forwarded-host': domain,
  [ORIGIN_VERIFY_HEADER]: (process.env[ORIGIN_VERIFY_VALUES_ENV] ?? '').split(',')[0] ?? '',
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const createLink = async (world: World, url: string) => {
  const res = await fetch(`${world.stack.baseUrl}/v1/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'api-key': world.tenant.serverKey },
    body: JSON.stringify({ url, domain: world.tenant.domain }),
  });
  const body = (await res.json()) as { data: { id: string; key: string; domain: string } };
  if (res.status !== 201) throw new Error(`hot link setup: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
};

const clicksOf = async (world: World, id: string): Promise<number> => {
  const res = await fetch(`${world.stack.baseUrl}/v1/links/${id}`, { headers: { 'api-key': world.tenant.serverKey } });
  const body = (await res.json()) as { data: { clicks: number } };
  return body.data.clicks;
};

/**
 * Waits until both links' counts reach what was sent, or stop moving for `quietMs` (a lost click
 * never arrives), at most `maxMs`: the counter path may count after the answer (a stream).
 */
const settledCounts = async (
  world: World,
  links: Array<{ id: string; sent: number }>,
  quietMs: number,
  maxMs: number,
) => {
  const started = performance.now();
  let last = '';
  let lastChange = started;
  for (;;) {
    const counts = await Promise.all(links.map((l) => clicksOf(world, l.id)));
    const now = performance.now();
    const key = counts.join(',');
    if (key !== last) {
      last = key;
      lastChange = now;
    }
    const allCounted = links.every((l, i) => must(counts[i], `count of link ${l.id}`) >= l.sent);
    if (allCounted || now - lastChange >= quietMs || now - started >= maxMs) {
      return { counts, settleMs: Math.round(now - started) };
    }
    await sleep(250);
  }
};

/**
 * One link at 10x the scaled per-key limits and a cold link, for `seconds`, through the built
 * redirect bundle on `INSTANCES` simulated instances, with the limit-enforcing DynamoDB proxy.
 * The bundle carries only the deployed sink (Kinesis PutRecords): it sends to a loopback stream
 * that hands every record to the local stack's event stream, whose counter consumer counts them
 * as the deployed consumer counts the real stream's.
 */
export const measureHotLink = (world: World, dynamoEndpoint: string, seconds: number): Promise<HotLinkResult> =>
  withFakeEventStream(() => measureHotLinkThroughStream(world, dynamoEndpoint, seconds), {
    forward: (events) => getEventSink().send(events),
  });

const measureHotLinkThroughStream = async (
  world: World,
  dynamoEndpoint: string,
  seconds: number,
): Promise<HotLinkResult> => {
  const proxy = await startDynamoFaultProxy(dynamoEndpoint, { perKeyLimits: { ...SCALED_KEY_LIMITS } });
  const previousEndpoint = process.env.DYNAMODB_ENDPOINT;
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  try {
    const [hotLink, coldLink, warm] = await Promise.all([
      createLink(world, 'https://example.com/viral'),
      createLink(world, 'https://example.com/ordinary'),
      createLink(world, 'https://example.com/warm-up'),
    ]);
    const handlers: BundledHandler[] = [];
    for (let i = 0; i < INSTANCES; i++) handlers.push(await importBundle('edge-links', `hot-link-${Date.now()}-${i}`));
    const requestOf = (link: { key: string; domain: string }) => ({
      method: 'GET',
      path: `/${link.key}`,
      headers: { ...viaFrontDoor(link.domain), 'user-agent': PHONE_UA },
      pathParameters: { key: link.key },
    });
    // Warm every instance on a third link (module init, host cache, SDK connections), outside the limits' keys.
    await Promise.all(handlers.map((h) => invokeTimed(h, apiEvent(requestOf(warm)))));

    const jobs: Array<{ at: number; hot: boolean }> = [];
    for (let i = 0; i < HOT_CLICKS_PER_SECOND * seconds; i++)
      jobs.push({ at: (i * 1000) / HOT_CLICKS_PER_SECOND, hot: true });
    for (let i = 0; i < COLD_CLICKS_PER_SECOND * seconds; i++)
      jobs.push({ at: (i * 1000) / COLD_CLICKS_PER_SECOND + 7, hot: false });
    jobs.sort((a, b) => a.at - b.at);
    /** Time to the visitor's whole answer, and each invocation's duration. */
    const times = { hot: [] as number[], cold: [] as number[] };
    const durations = { hot: [] as number[], cold: [] as number[] };
    const errors = { hot: 0, cold: 0 };
    const callsBefore = proxy.counts.calls;
    const throttlesBefore = { ...proxy.counts };
    const start = performance.now();
    /** Each click fires at its time on the next instance (round robin), whether or not that instance is busy. */
    const click = async (job: (typeof jobs)[number], handler: BundledHandler) => {
      const wait = start + job.at - performance.now();
      if (wait > 0) await sleep(wait);
      const side = job.hot ? 'hot' : 'cold';
      const t = performance.now();
      try {
        const answer = await invokeTimed(handler, apiEvent(requestOf(job.hot ? hotLink : coldLink)));
        if (answer.status !== 302) errors[side] += 1;
        times[side].push(answer.answeredMs);
        durations[side].push(answer.durationMs);
      } catch {
        errors[side] += 1;
        times[side].push(performance.now() - t);
      }
    };
    await Promise.all(jobs.map((job, i) => click(job, must(handlers[i % INSTANCES], `instance ${i % INSTANCES}`))));
    const elapsedMs = performance.now() - start;
    const sent = { hot: jobs.filter((j) => j.hot).length, cold: jobs.filter((j) => !j.hot).length };
    const { counts, settleMs } = await settledCounts(
      world,
      [
        { id: hotLink.id, sent: sent.hot },
        { id: coldLink.id, sent: sent.cold },
      ],
      // Quiet for longer than the consumer's longest retry pause: a batch waiting out a throttle
      // is late, not lost.
      2 * LOCAL_COUNTER_MAX_RETRY_MS,
      90_000,
    );
    const side = (key: 'hot' | 'cold', counted: number): HotLinkSide => ({
      sent: sent[key],
      visitorErrors: errors[key],
      p50Ms: round(percentile(times[key], 50), 2),
      p99Ms: round(percentile(times[key], 99), 2),
      durationP50Ms: round(percentile(durations[key], 50), 2),
      durationP99Ms: round(percentile(durations[key], 99), 2),
      counted,
    });
    const hot = side('hot', must(counts[0], 'hot link count'));
    const cold = side('cold', must(counts[1], 'cold link count'));
    return {
      seconds,
      instances: INSTANCES,
      limits: SCALED_KEY_LIMITS,
      hotRate: HOT_CLICKS_PER_SECOND,
      coldRate: COLD_CLICKS_PER_SECOND,
      hot,
      cold,
      throttles: {
        total: proxy.counts.throttles - throttlesBefore.throttles,
        read: proxy.counts.readThrottles - throttlesBefore.readThrottles,
        write: proxy.counts.writeThrottles - throttlesBefore.writeThrottles,
      },
      dynamoCalls: proxy.counts.calls - callsBefore,
      settleMs,
      p99Ratio: round(hot.p99Ms / cold.p99Ms, 2),
      achievedPerSecond: round((jobs.length * 1000) / elapsedMs, 1),
    };
  } finally {
    process.env.DYNAMODB_ENDPOINT = previousEndpoint;
    await proxy.stop();
  }
};
