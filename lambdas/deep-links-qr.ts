import { deepLinksQrRoute } from '@shared/routes/deep-link-routes';
import { v1Handler } from '@shared/http/v1-handler';
import { linkQrReply } from '@shared/links/link-qr';

export const handler = v1Handler(deepLinksQrRoute, async ({ auth, path, query }) =>
  linkQrReply(auth.workspaceId, 'DEEPLINK', path.linkId, query),
);
