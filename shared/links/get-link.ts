import type { LinkType } from './link-record';
import { linkRepository } from './link-repository';
import { toLinkResource, type LinkResource } from './link-view';

export const getLinkResourceOrThrow = async (
  workspaceId: string,
  linkId: string,
  linkType: LinkType,
): Promise<LinkResource> => toLinkResource(await linkRepository.getByIdOrThrow(workspaceId, linkId, linkType));
