import { describe, expect, it } from 'vitest';
import { Stack } from 'aws-cdk-lib';
import { clickPathSampling } from '@lib/trace-sampling';
import { routeTable } from '@shared/routes/route-table';
import { edgeOutcomes, metricNames, metricsNamespace, serviceName } from '@shared/util/telemetry-names';
import { synthStack } from '@test/support/synth-stack';

const { stack, template } = synthStack();

/** The dashboard body: CloudFormation joins tokens into it with Fn::Join; references become placeholders. */
const dashboardBody = () => {
  const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  expect(dashboards).toHaveLength(1);
  const body = dashboards[0]!.Properties.DashboardBody as unknown;
  const text =
    typeof body === 'string'
      ? body
      : (body as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1]
          .map((part) => (typeof part === 'string' ? part : '"REF"'))
          .join('');
  return JSON.parse(text.replace(/""REF""/g, '"REF"').replace(/"REF"/g, '"REF"')) as {
    widgets: { type: string; properties: { title?: string; metrics?: unknown[][]; alarms?: unknown[] } }[];
  };
};

const widget = (title: string) => {
  const found = dashboardBody().widgets.find((w) => w.properties.title === title);
  expect(found, `widget "${title}"`).toBeDefined();
  return found!.properties;
};

const metricRows = (title: string) => (widget(title).metrics ?? []).map((row) => JSON.stringify(row));

describe('observability in the stack', () => {
  it('turns on X-Ray active tracing on every function', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (f) => f.Properties.Handler === 'index.handler',
    );
    expect(functions.length).toBeGreaterThanOrEqual(new Set(routeTable.map((r) => r.handler)).size);
    for (const fn of functions) expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
  });

  it('samples the click path sparsely: a rule per click function at 1 in 1,000, no reservoir', () => {
    const rules = Object.values(template.findResources('AWS::XRay::SamplingRule')).map(
      (r) => r.Properties.SamplingRule,
    );
    expect(rules).toHaveLength(2);
    const names = ['EdgeLinks', 'ClientClick'].map((id) =>
      stack.resolve((stack.node.findChild(id) as unknown as { functionName: string }).functionName),
    );
    for (const rule of rules) {
      expect(rule).toMatchObject({
        FixedRate: clickPathSampling.fixedRate,
        ReservoirSize: 0,
        ServiceType: '*',
        Version: 1,
      });
      expect(rule.RuleName.length).toBeLessThanOrEqual(32);
    }
    expect(rules.map((r) => r.ServiceName)).toEqual(names);
    expect(clickPathSampling.fixedRate).toBeLessThan(0.01);
  });

  it("uses Lambda's advanced logging controls on every function: JSON, platform lines (START/END/REPORT) dropped, metrics kept", () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (f) => f.Properties.Handler === 'index.handler',
    );
    expect(functions.length).toBeGreaterThanOrEqual(new Set(routeTable.map((r) => r.handler)).size);
    for (const fn of functions)
      expect(fn.Properties.LoggingConfig).toMatchObject({
        LogFormat: 'JSON',
        SystemLogLevel: 'WARN',
        ApplicationLogLevel: 'INFO',
      });
  });

  it('graphs clicks by source from the counter consumer (no per-click metric on the click path)', () => {
    const rows = metricRows('Clicks per minute (edge and client API)');
    expect(rows).toHaveLength(4);
    for (const [name, source] of [
      [metricNames.clicks, 'edge'],
      [metricNames.clicks, 'client API'],
      [metricNames.botClicks, 'edge'],
      [metricNames.botClicks, 'client API'],
    ])
      expect(rows.some((r) => r.includes(`"${name}"`) && r.includes(`"Source","${source}"`))).toBe(true);
  });

  it('has the operations dashboard with every widget the operators need', () => {
    const titles = dashboardBody()
      .widgets.map((w) => w.properties.title)
      .filter(Boolean);
    expect(titles).toEqual(
      expect.arrayContaining([
        'Alarms',
        'Redirects per minute by outcome',
        'Clicks per minute (edge and client API)',
        'Latency p50 per route (ms)',
        'Latency p99 per route (ms)',
        '4xx per API',
        '5xx per API',
        'Lambda errors',
        'Lambda throttles',
        'DynamoDB throttles',
        'Events: lake freshness (s), counter lag (ms) and failed puts',
      ]),
    );
  });

  it('graphs redirects per minute for every edge outcome from the Powertools metric', () => {
    const rows = metricRows('Redirects per minute by outcome');
    expect(rows).toHaveLength(edgeOutcomes.length);
    edgeOutcomes.forEach((outcome, i) => {
      expect(rows[i]).toContain(`"${metricsNamespace}","${metricNames.redirects}"`);
      expect(rows[i]).toContain(`"service","${serviceName}"`);
      expect(rows[i]).toContain(`"Outcome","${outcome}"`);
      expect(rows[i]).toContain('"period":60');
    });
  });

  it('graphs p50 and p99 latency for every route function, and 4xx / 5xx for both APIs', () => {
    const handlers = new Set(routeTable.map((r) => r.handler));
    const p50 = metricRows('Latency p50 per route (ms)');
    const p99 = metricRows('Latency p99 per route (ms)');
    expect(p50).toHaveLength(handlers.size);
    expect(p99).toHaveLength(handlers.size);
    for (const row of p50) expect(row).toMatch(/"AWS\/Lambda","Duration".*"stat":"p50"/);
    for (const row of p99) expect(row).toMatch(/"AWS\/Lambda","Duration".*"stat":"p99"/);
    for (const handler of handlers) expect(p99.some((row) => row.includes(`"label":"${handler}"`))).toBe(true);
    expect(metricRows('4xx per API').map((r) => r.match(/"label":"(\w+)/)?.[1])).toEqual(['service', 'edge']);
    expect(metricRows('5xx per API')[0]).toContain('"AWS/ApiGateway","5xx"');
    expect(metricRows('5xx per API')[1]).toContain('"AWS/CloudFront","5xxErrorRate"');
  });

  it('graphs Lambda errors and throttles per function, DynamoDB throttles, lake freshness, counter lag and failed puts', () => {
    const handlers = new Set(routeTable.map((r) => r.handler));
    expect(metricRows('Lambda errors').filter((r) => r.includes('"AWS/Lambda","Errors"'))).toHaveLength(handlers.size);
    expect(metricRows('Lambda throttles').filter((r) => r.includes('"AWS/Lambda","Throttles"'))).toHaveLength(
      handlers.size,
    );
    const dynamo = metricRows('DynamoDB throttles').join('\n');
    expect(dynamo).toContain('"AWS/DynamoDB","ThrottledRequests"');
    expect(dynamo).toContain(`"${metricNames.throttles}"`);
    const events = metricRows('Events: lake freshness (s), counter lag (ms) and failed puts').join('\n');
    expect(events).toContain('"AWS/Firehose","DeliveryToS3.DataFreshness"');
    expect(events).toContain('"AWS/Kinesis","GetRecords.IteratorAgeMilliseconds"');
    expect(events).toContain('"AWS/Kinesis","PutRecords.ThrottledRecords"');
    expect(events).toContain(`"${metricsNamespace}","${metricNames.undeliveredEvents}"`);
  });

  it('shows every existing alarm on the dashboard', () => {
    const alarms = Object.keys(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(0);
    expect(widget('Alarms').alarms).toHaveLength(alarms.length);
  });

  it('alarms on lost events with the dimensions Powertools writes (service and StreamName)', () => {
    const alarm = Object.values(template.findResources('AWS::CloudWatch::Alarm')).find(
      (a) => a.Properties.MetricName === metricNames.undeliveredEvents,
    );
    expect(alarm?.Properties).toMatchObject({ Namespace: metricsNamespace });
    expect(alarm!.Properties.Dimensions.map((d: { Name: string }) => d.Name).sort()).toEqual(['StreamName', 'service']);
    expect(
      Stack.of(stack).resolve(alarm!.Properties.Dimensions.find((d: { Name: string }) => d.Name === 'service').Value),
    ).toBe(serviceName);
  });

  it('alarms when the rate limiter fails open (one request let through unlimited is enough)', () => {
    const alarm = Object.values(template.findResources('AWS::CloudWatch::Alarm')).find(
      (a) => a.Properties.MetricName === metricNames.rateLimiterFailedOpen,
    );
    expect(alarm?.Properties).toMatchObject({
      Namespace: metricsNamespace,
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(alarm!.Properties.AlarmActions).toHaveLength(1);
  });
});
