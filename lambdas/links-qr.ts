import { linksQrRoute } from '@shared/routes/link-routes';
import { v1Handler } from '@shared/http/v1-handler';
import { linkQrReply } from '@shared/links/link-qr';

export const handler = v1Handler(linksQrRoute, async ({ auth, path, query }) =>
  linkQrReply(auth.workspaceId, 'SHORTLINK', path.linkId, query),
);
