import type { DomainRecord } from './tenancy-types';

/** The Domain resource: exactly these fields (usage and appId stay internal). */
export const toDomainResource = (domain: DomainRecord) => ({
  id: domain.id,
  domain: domain.domain,
  verified: domain.verified,
  placeholder: domain.placeholder,
  expiredUrl: domain.expiredUrl,
  notFoundUrl: domain.notFoundUrl,
  primary: domain.primary,
  archived: domain.archived,
  createdAt: domain.createdAt,
  updatedAt: domain.updatedAt,
});

export type DomainResource = ReturnType<typeof toDomainResource>;
