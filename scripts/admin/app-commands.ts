/** admin set-app: a deep-link app's iOS / Android settings (store URLs, URL schemes, App Clip, pasteboard hand-off, certificates). */
import type { Command } from 'commander';
import { invalidInput, notFound } from '@shared/admin/admin-error';
import { configureApp, type AppSettingsChange } from '@shared/admin/configure-app';
import { isAppError } from '@shared/errors/app-error';
import type { DeepLinkAppRecord } from '@shared/tenancy/tenancy-types';
import type { AdminTargetOf } from './admin-target';
import { fieldLines, printResult, type JsonOption } from './output';

interface SetAppOptions extends JsonOption {
  appStoreUrl?: string;
  iosUrlScheme?: string;
  appClip?: string;
  pasteboardHandoff?: string;
  playStoreUrl?: string;
  androidUrlScheme?: string;
  androidCert?: string[];
}

/** What `set-app` prints: the app's platform settings after the change. */
const settingsText = (app: Pick<DeepLinkAppRecord, 'id' | 'domain' | 'ios' | 'android'>): string =>
  [
    `Deep-link app ${app.id} (${app.domain}) updated; the edge sees it within 60 s.`,
    fieldLines([
      ...(app.ios
        ? ([
            ['iOS bundle id', app.ios.bundleId],
            ['iOS App Store URL', app.ios.appStoreUrl],
            ['iOS URL scheme', app.ios.urlScheme],
            ['iOS App Clip', app.ios.appClipBundleId],
            ['iOS pasteboard hand-off', app.ios.pasteboardHandoff ? 'on' : 'off'],
          ] as const)
        : ([['iOS', 'not configured']] as const)),
      ...(app.android
        ? ([
            ['Android package', app.android.packageName],
            ['Android Play Store URL', app.android.playStoreUrl],
            ['Android URL scheme', app.android.urlScheme],
            ['Android certificates', app.android.sha256CertFingerprints.join(', ')],
          ] as const)
        : ([['Android', 'not configured']] as const)),
    ]),
  ].join('\n');

/** `none` clears an optional setting. */
const orNull = (value: string | undefined) => (value === undefined ? undefined : value === 'none' ? null : value);

export const registerAppCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  program
    .command('set-app')
    .description(
      "change a deep-link app's iOS / Android settings (omitted options keep their value; the edge sees it within 60 s)",
    )
    .argument('<app-domain>', "the deep-link app's domain")
    .option('--app-store-url <url>', 'App Store URL ("none" clears)')
    .option('--ios-url-scheme <scheme>', 'custom URL scheme for in-app browsers on iOS ("none" clears)')
    .option('--app-clip <bundleId>', 'App Clip bundle id: adds the appclips section to the AASA ("none" clears)')
    .option('--pasteboard-handoff <on|off>', 'the launch view copies the click id for the app to read on first open')
    .option('--play-store-url <url>', 'Play Store URL ("none" clears)')
    .option('--android-url-scheme <scheme>', 'custom URL scheme for in-app browsers on Android ("none" clears)')
    .option('--android-cert <sha256...>', 'signing-certificate SHA-256 fingerprints (replace the list)')
    .option('--json', 'print one line of JSON')
    .action(async (appDomain: string, options: SetAppOptions) => {
      adminTarget();
      if (options.pasteboardHandoff !== undefined && !['on', 'off'].includes(options.pasteboardHandoff)) {
        throw invalidInput(`--pasteboard-handoff takes on or off (got ${options.pasteboardHandoff})`);
      }
      const change: AppSettingsChange = {
        appStoreUrl: orNull(options.appStoreUrl),
        iosUrlScheme: orNull(options.iosUrlScheme),
        appClipBundleId: orNull(options.appClip),
        pasteboardHandoff: options.pasteboardHandoff === undefined ? undefined : options.pasteboardHandoff === 'on',
        playStoreUrl: orNull(options.playStoreUrl),
        androidUrlScheme: orNull(options.androidUrlScheme),
        sha256CertFingerprints: options.androidCert,
      };
      const app = await configureApp(appDomain, change).catch((error: unknown) => {
        if (isAppError(error) && error.code === 'not_found') throw notFound(`No deep-link app on ${appDomain}`);
        throw error;
      });
      printResult(options, { id: app.id, domain: app.domain, ios: app.ios, android: app.android }, settingsText);
    });
};
