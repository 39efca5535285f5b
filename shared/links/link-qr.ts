import QRCode from 'qrcode';
import type { ApiReply } from '@shared/http/api-types';
import type { QrQuery } from '@shared/schemas/qr-schemas';
import { shortLinkOf, type LinkType } from './link-record';
import { linkRepository } from './link-repository';

/** A link's QR code changes only if its domain or key does: a browser may keep it for an hour. */
const QR_CACHE_CONTROL = 'private, max-age=3600';

/**
 * The QR code of `text` with the `qrcode` library (MIT, maintained; we do not encode QR codes
 * ourselves): SVG text, or PNG bytes `size` pixels wide, `margin` modules of quiet zone.
 */
export const renderQr = async (text: string, query: QrQuery): Promise<{ contentType: string; body: Buffer }> => {
  const options = {
    errorCorrectionLevel: query.ecc,
    margin: query.margin,
    width: query.size,
    color: { dark: `${query.color ?? '#000000'}ff`, light: `${query.background ?? '#ffffff'}ff` },
  };
  if (query.format === 'png')
    return { contentType: 'image/png', body: await QRCode.toBuffer(text, { ...options, type: 'png' }) };
  return {
    contentType: 'image/svg+xml',
    body: Buffer.from(await QRCode.toString(text, { ...options, type: 'svg' }), 'utf8'),
  };
};

/**
 * GET /v1/links/{id}/qr and /v1/deep-links/{id}/qr: the QR code of the link's shortLink (another
 * workspace's link or the other type is 404). The image goes out base64-encoded, as API Gateway
 * wants binary bodies from Lambda.
 */
export const linkQrReply = async (
  workspaceId: string,
  linkType: LinkType,
  linkId: string,
  query: QrQuery,
): Promise<ApiReply<never>> => {
  const link = await linkRepository.getByIdOrThrow(workspaceId, linkId, linkType);
  const image = await renderQr(shortLinkOf(link.domain, link.key), query);
  return {
    status: 200,
    headers: { 'Cache-Control': QR_CACHE_CONTROL },
    raw: { contentType: image.contentType, body: image.body.toString('base64'), isBase64Encoded: true },
  };
};
