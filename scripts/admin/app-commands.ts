/** admin set-app: a deep-link app's iOS / Android settings (store URLs, URL schemes, App Clip, pasteboard hand-off, certificates). */
import type { Command } from 'commander';
import { configureApp, type AppSettingsChange } from '@shared/admin/configure-app';
import { AppError } from '@shared/errors/app-error';
import { AdminUsageError, adminTarget } from './admin-target';
import { printResult, type JsonOption } from './output';

interface SetAppOptions extends JsonOption {
  appStoreUrl?: string;
  iosUrlScheme?: string;
  appClip?: string;
  pasteboardHandoff?: string;
  playStoreUrl?: string;
  androidUrlScheme?: string;
  androidCert?: string[];
}

/** `none` clears an optional setting. */
const orNull = (value: string | undefined) => (value === undefined ? undefined : value === 'none' ? null : value);

export const registerAppCommands = (program: Command): void => {
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
        throw new AdminUsageError('--pasteboard-handoff takes on or off');
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
      try {
        const app = await configureApp(appDomain, change);
        printResult(options, { id: app.id, domain: app.domain, ios: app.ios, android: app.android });
      } catch (error) {
        if (error instanceof AppError) {
          const details = (error.details as Array<{ path: string; message: string }> | undefined) ?? [];
          throw new AdminUsageError([error.message, ...details.map((d) => `${d.path}: ${d.message}`)].join('; '));
        }
        throw error;
      }
    });
};
