import { getEventSink } from '@shared/events/event-sink';
import { drainEventStream } from '@shared/events/local-event-stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { rawPartitionPath, shardOf } from '@shared/analytics/lake/lake-layout';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { recordClick } from '@shared/clicks/record-click';
import { parseUserAgent } from '@shared/clicks/user-agent';
import { eventRecordSchema } from '@shared/events/event-record-schema';
import { createShortLink } from '@shared/links/create-link';
import { linkRepository } from '@shared/links/link-repository';
import { decodeCursor, encodeCursor } from '@shared/pagination/cursor';
import { readLake } from '@test/support/lake-reader';
import { TEST_ORIGIN } from '@test/support/test-origin';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1';
const SLACKBOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';

let tenant: BootstrapResult;
beforeAll(async () => {
  tenant = await bootstrapTenant({ baseUrl: 'http://x', edgeUrl: 'http://y' });
});

describe('recordClick', () => {
  it('sends the events in the lake layout, and the counter consumer moves human and bot counters', async () => {
    const link = await createShortLink(
      tenant.workspaceId,
      {
        url: 'https://example.com',
        domain: tenant.domain,
        tracking: { utmSource: 'news', utmCampaign: 'spring' },
      },
      TEST_ORIGIN,
    );
    const clicked = {
      workspaceId: tenant.workspaceId,
      linkId: link.id,
      linkType: link.linkType,
      deepLinkAppId: null,
      domain: link.domain,
      key: link.key,
      tracking: link.tracking,
    };
    const at = new Date('2026-03-04T05:06:07.000Z');
    await Promise.all(
      Array.from({ length: 25 }, () =>
        recordClick({
          link: clicked,
          userAgent: IPHONE,
          ip: '203.0.113.9',
          country: 'de',
          referrer: 'https://news.example.org/a',
          resolvedDestinationUrl: link.url,
          responseKind: 'redirect',
          at,
        }),
      ),
    );
    await recordClick({
      link: clicked,
      userAgent: SLACKBOT,
      ip: '198.51.100.1',
      country: null,
      referrer: null,
      resolvedDestinationUrl: null,
      responseKind: 'preview',
      at,
    });
    await recordClick({
      link: clicked,
      userAgent: IPHONE,
      ip: '203.0.113.9',
      country: null,
      referrer: null,
      resolvedDestinationUrl: null,
      responseKind: 'redirect',
      forceBot: true,
      at,
    });

    await drainEventStream(getEventSink()); // the event stream's consumer moves the counters
    const stored = await linkRepository.findById(link.id, true);
    expect(stored).toMatchObject({
      clicks: 25,
      botClicks: 2,
      lastClicked: at.toISOString(),
      lastBotClickedAt: at.toISOString(),
    });

    const events = readLake().filter((e) => e.line.linkId === link.id);
    expect(events).toHaveLength(27);
    for (const e of events) {
      expect(e.dir).toBe(rawPartitionPath({ shard: shardOf(tenant.workspaceId), dt: '2026-03-04', hour: '05' }));
      expect(eventRecordSchema.parse(e.line)).toBeTruthy();
    }
    const human = events.find((e) => e.line.trafficType === 'human')!.line;
    expect(human).toMatchObject({
      eventType: 'click',
      country: 'DE',
      deviceType: 'mobile',
      platform: 'ios',
      referrerHost: 'news.example.org',
      utmSource: 'news',
      utmCampaign: 'spring',
      resolvedDestinationUrl: 'https://example.com',
    });
    expect(JSON.stringify(events)).not.toContain('203.0.113.9');
    expect(new Set(events.map((e) => e.line.eventId)).size).toBe(27);
    expect(new Set(events.filter((e) => e.line.trafficType === 'human').map((e) => e.line.visitorId)).size).toBe(1);
  });
});

describe('user agents', () => {
  it('tells bots, phones and desktops apart', () => {
    expect(parseUserAgent(SLACKBOT)).toMatchObject({ isBot: true, deviceType: 'bot' });
    expect(parseUserAgent('')).toMatchObject({ isBot: true });
    expect(parseUserAgent(IPHONE)).toMatchObject({
      isBot: false,
      deviceType: 'mobile',
      platform: 'ios',
      osMajor: '17',
    });
    expect(
      parseUserAgent(
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36',
      ),
    ).toMatchObject({ platform: 'android', deviceType: 'mobile' });
    expect(
      parseUserAgent(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      ),
    ).toMatchObject({ platform: 'desktop', deviceType: 'desktop', browser: 'Chrome' });
  });
});

describe('signed cursors', () => {
  it('round-trip for the same query and refuse tampering or another query', async () => {
    const query = { route: 'links', workspaceId: 'ws_1', sort: 'created_at_desc' };
    const cursor = await encodeCursor({ after: 'x' }, query);
    expect(await decodeCursor(cursor, query)).toEqual({ after: 'x' });
    await expect(decodeCursor(cursor, { ...query, sort: 'created_at_asc' })).rejects.toMatchObject({
      code: 'invalid_cursor',
    });
    const [payload, mac] = cursor.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), p: { after: 'y' } }),
    ).toString('base64url');
    await expect(decodeCursor(`${forged}.${mac}`, query)).rejects.toMatchObject({ code: 'invalid_cursor' });
    await expect(decodeCursor('garbage', query)).rejects.toMatchObject({ code: 'invalid_cursor' });
  });
});
