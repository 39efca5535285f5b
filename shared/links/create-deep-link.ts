import type { ChangeOrigin } from '@shared/audit/audit-entry';
import { AppError } from '@shared/errors/app-error';
import type { CreateDeepLinkBody } from '@shared/schemas/link-schemas';
import { appRepository } from '@shared/tenancy/app-repository';
import { domainRepository } from '@shared/tenancy/domain-repository';
import type { DeepLinkAppRecord, DomainRecord } from '@shared/tenancy/tenancy-types';
import { GENERATED_KEY_LENGTH, insertLink } from './create-link';
import { destinationOf, type EditableLinkInput } from './link-input';
import type { LinkRecord } from './link-record';
import { toLinkResource, type LinkResource } from './link-view';
import { required } from '@shared/util/required';

/** The workspace's app (404 otherwise) and its verified domain. */
export const getAppWithDomainOrThrow = async (
  workspaceId: string,
  appId: string,
): Promise<{ app: DeepLinkAppRecord; domain: DomainRecord }> => {
  const app = await appRepository.getByIdOrThrow(workspaceId, appId);
  const domain = await domainRepository.findById(workspaceId, app.domainId);
  if (!domain || domain.archived || !domain.verified) {
    throw new AppError('invalid_request', "The app's domain is not verified", [
      { path: 'deepLinkAppId', message: "the app's domain is not verified" },
    ]);
  }
  return { app, domain };
};

/** Creates a DEEPLINK on the app's domain; `url` defaults to the app's default URL. */
export const insertDeepLink = async (
  workspaceId: string,
  appId: string,
  body: EditableLinkInput,
  origin: ChangeOrigin,
  generatedKeyLength = GENERATED_KEY_LENGTH,
): Promise<LinkRecord> => {
  const { app, domain } = await getAppWithDomainOrThrow(workspaceId, appId);
  return insertLink(
    { workspaceId, linkType: 'DEEPLINK', domain, deepLinkAppId: app.id, url: destinationOf(body) ?? app.defaultUrl },
    body,
    origin,
    generatedKeyLength,
  );
};

/** POST /v1/deep-links. */
export const createDeepLink = async (
  workspaceId: string,
  body: CreateDeepLinkBody,
  origin: ChangeOrigin,
): Promise<LinkResource> =>
  toLinkResource(
    await insertDeepLink(
      workspaceId,
      required(body.deepLinkAppId ?? body.appId, 'deepLinkAppId or appId (the schema requires one)'),
      body,
      origin,
    ),
  );
