import { isbot } from 'isbot';
import { UAParser } from 'ua-parser-js';

export type DeviceType = 'desktop' | 'mobile' | 'tablet' | 'bot' | 'other';
export type Platform = 'ios' | 'android' | 'desktop' | 'other';

export interface ClientInfo {
  isBot: boolean;
  deviceType: DeviceType;
  platform: Platform;
  browser: string | null;
  os: string | null;
  osMajor: string | null;
}

/**
 * Classifies a user agent: bots by the `isbot` list (a well-kept crawler/unfurler list), then
 * device, platform, browser and OS by `ua-parser-js` 1.x (MIT; 2.x is AGPL and must not be
 * used), which is kept up to date with new browsers, in-app browsers and OS versions. An empty
 * user agent counts as a bot. Only the first 1,024 characters are read.
 */
export const parseUserAgent = (userAgent: string | undefined | null): ClientInfo => {
  const ua = (userAgent ?? '').slice(0, 1024);
  const result = new UAParser(ua).getResult();
  const osName = result.os.name ?? null;
  const bot = ua.trim() === '' || isbot(ua);
  const platform: Platform =
    osName === 'iOS' || osName === 'iPadOS'
      ? 'ios'
      : osName === 'Android'
        ? 'android'
        : osName && /Windows|Mac OS|Linux|Ubuntu|Chrome OS|Chromium OS|Fedora|Debian/.test(osName)
          ? 'desktop'
          : 'other';
  const deviceType: DeviceType = bot
    ? 'bot'
    : result.device.type === 'mobile'
      ? 'mobile'
      : result.device.type === 'tablet'
        ? 'tablet'
        : platform === 'desktop'
          ? 'desktop'
          : platform === 'ios' || platform === 'android'
            ? 'mobile'
            : 'other';
  return {
    isBot: bot,
    deviceType,
    platform,
    browser: result.browser.name ?? null,
    os: osName,
    osMajor: result.os.version?.split('.')[0] ?? null,
  };
};
