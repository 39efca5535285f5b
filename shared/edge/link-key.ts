/**
 * Link key syntax (1-100 of [A-Za-z0-9_-], `.` inside); anything else cannot be a link (no table
 * read). Its own module so the hot-link edge function (hot-links/edge-answer.ts) bundles it alone.
 */
export const LINK_KEY = /^[A-Za-z0-9_-](?:[A-Za-z0-9_.-]{0,98}[A-Za-z0-9_-])?$/;
