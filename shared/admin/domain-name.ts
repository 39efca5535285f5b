/** Link domain names as the admin commands take them, and the error of a refused domain operation. */
import { AdminError, type AdminErrorCode } from './admin-error';

/** A refused domain operation (the CLI prints the sentence and exits 1). */
export class DomainFlowError extends AdminError {
  override name = 'DomainFlowError';
  constructor(message: string, code: AdminErrorCode = 'invalid_input') {
    super(code, message);
  }
}

const HOSTNAME = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Lower case, without a trailing dot; anything that is not a DNS name is refused. */
export const normalizeDomain = (raw: string): string => {
  const domain = raw.trim().toLowerCase().replace(/\.$/, '');
  if (!HOSTNAME.test(domain)) throw new DomainFlowError(`"${raw}" is not a domain name (e.g. go.example.com)`);
  return domain;
};
