import { LinksTable } from '../components/LinksTable';

/**
 * Deep links: the links of the workspace's deep-link apps, in the same list as the short links
 * (filters, sort, pages, create, edit, archive), each opening its page with the launch view's
 * metrics.
 */
export const DeepLinksPage = () => <LinksTable kind="deep-link" />;
