import type { DomainRecord } from './tenancy-types';
import { nullableUriOf } from '@shared/util/http-url';

/** The Domain resource: exactly these fields (usage and appId stay internal). */
export const toDomainResource = (domain: DomainRecord) => ({
  id: domain.id,
  domain: domain.domain,
  verified: domain.verified,
  placeholder: domain.placeholder,
  expiredUrl: nullableUriOf(domain.expiredUrl),
  notFoundUrl: nullableUriOf(domain.notFoundUrl),
  primary: domain.primary,
  archived: domain.archived,
  createdAt: domain.createdAt,
  updatedAt: domain.updatedAt,
});

export type DomainResource = ReturnType<typeof toDomainResource>;
