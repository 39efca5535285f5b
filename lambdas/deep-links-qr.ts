import { v1Handler } from '@shared/http/v1-handler';
import { linkQrReply } from '@shared/links/link-qr';
import { linkIdPathSchema } from '@shared/schemas/link-id-path-schema';
import { qrQuerySchema } from '@shared/schemas/qr-schemas';

export const handler = v1Handler(
  { route: 'deep-links-qr', path: linkIdPathSchema, query: qrQuerySchema },
  async ({ auth, path, query }) => linkQrReply(auth.workspaceId, 'DEEPLINK', path.linkId, query),
);
