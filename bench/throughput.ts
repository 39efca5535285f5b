import autocannon from 'autocannon';
import { PHONE_UA } from './lambda-invoke';
import type { World } from './world';

export interface ThroughputRow {
  name: string;
  url: string;
  connections: number;
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Transport errors, timeouts and answers with another status than the expected one. */
  errors: number;
  expectedStatus: number;
}

const run = (options: autocannon.Options) =>
  new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(options, (error: unknown, result) => {
      if (error) reject(error instanceof Error ? error : new Error('autocannon failed', { cause: error }));
      else resolve(result);
    });
  });

/** The local server on loopback (service and edge APIs) under autocannon, fixed duration and connections. */
export const measureThroughput = async (
  world: World,
  seconds: number,
  connections: number,
): Promise<ThroughputRow[]> => {
  const targets = [
    {
      name: 'redirect (edge)',
      url: `${world.stack.edgeUrl}/${world.link.key}`,
      headers: { host: world.link.domain, 'user-agent': PHONE_UA },
      expectedStatus: 302,
    },
    {
      name: 'GET link (service)',
      url: `${world.stack.baseUrl}/v1/links/${world.link.id}`,
      headers: { 'api-key': world.tenant.serverKey },
      expectedStatus: 200,
    },
  ];
  const rows: ThroughputRow[] = [];
  for (const target of targets) {
    const result = await run({
      url: target.url,
      headers: target.headers,
      connections,
      duration: seconds,
      pipelining: 1,
    });
    const statuses =
      (result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
    const unexpected = Object.entries(statuses)
      .filter(([code]) => Number(code) !== target.expectedStatus)
      .reduce((n, [, s]) => n + s.count, 0);
    rows.push({
      name: target.name,
      url: target.url,
      connections,
      seconds,
      requests: result.requests.total,
      requestsPerSecond: Math.round(result.requests.average),
      latencyP50Ms: result.latency.p50,
      latencyP99Ms: result.latency.p99,
      errors: result.errors + result.timeouts + unexpected,
      expectedStatus: target.expectedStatus,
    });
  }
  return rows;
};
