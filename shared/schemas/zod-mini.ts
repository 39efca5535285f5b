import { en } from 'zod/locales';
import { config } from 'zod/mini';

/**
 * The zod every runtime schema is built with: zod/mini, about 12 KiB minified where classic zod
 * is about 95 KiB and several ms of module init on every cold start (docs/benchmarks.md), with
 * the English messages classic zod loads by default (mini loads none). Import it as a namespace
 * (`import * as z from '@shared/schemas/zod-mini'`) and use only `z.name` so esbuild can drop
 * what a handler does not use.
 */
config(en());

export * from 'zod/mini';
