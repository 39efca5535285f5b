import { describe, expect, it } from 'vitest';
import { toLinkResource } from '@shared/links/link-view';
import type { LinkRecord } from '@shared/links/link-record';
import { domainResourceSchema, linkResourceSchema } from '@shared/schemas/resource-schemas';
import * as z from '@shared/schemas/zod-mini';
import { toDomainResource } from '@shared/tenancy/domain-view';

describe('documented resources agree with what the service returns', () => {
  it('Link: toLinkResource output parses strictly with linkResourceSchema', () => {
    const link: LinkRecord = {
      id: 'lnk_1',
      workspaceId: 'ws',
      linkType: 'DEEPLINK',
      domainId: 'd',
      domain: 'app.example.com',
      key: 'k',
      url: 'https://e.com',
      title: 't',
      desktopOverrideUrl: null,
      androidOverrideUrl: 'https://a.com',
      iosOverrideUrl: null,
      expiresAt: '2030-01-01T00:00:00.000Z',
      expiredUrl: null,
      passwordHash: 'scrypt$secret',
      comments: null,
      objects: { a: [1, { b: null }] },
      tags: [{ id: 'tag_1', name: 'n', color: 'red' }],
      tracking: { utmSource: 's', extra: 'x' },
      socialPreview: null,
      deepLinkAppId: 'app_1',
      archived: false,
      clicks: 1,
      botClicks: 0,
      lastClicked: '2030-01-01T00:00:00.000Z',
      lastBotClickedAt: null,
      createdAt: '2029-01-01T00:00:00.000Z',
      updatedAt: '2029-01-01T00:00:00.000Z',
    };
    const resource = toLinkResource(link);
    expect(z.strictObject(linkResourceSchema.shape).parse(resource)).toEqual(resource);
  });

  it('Domain: exactly the documented fields (usage and appId stay internal)', () => {
    const resource = toDomainResource({
      id: 'dom_1',
      workspaceId: 'ws',
      domain: 'go.example.com',
      verified: true,
      placeholder: null,
      expiredUrl: null,
      notFoundUrl: 'https://nf.example.com',
      primary: true,
      archived: false,
      usage: 'DEEPLINK',
      appId: 'app_1',
      createdAt: '2029-01-01T00:00:00.000Z',
      updatedAt: '2029-01-01T00:00:00.000Z',
    });
    expect(z.strictObject(domainResourceSchema.shape).parse(resource)).toEqual(resource);
    expect(resource).not.toHaveProperty('usage');
    expect(resource).not.toHaveProperty('workspaceId');
  });
});
