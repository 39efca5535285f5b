import { LinksTable } from '../components/LinksTable';

/** Links: the workspace's short links, with their filters, pages and actions (the shared list). */
export const LinksPage = () => <LinksTable kind="link" />;
