import { isbot } from 'isbot';

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
 * Browser names, first match wins (order matters: Edge, Opera, Samsung and the in-app browsers
 * also say "Chrome" or "Safari"). Names follow ua-parser-js, so stored events and analytics
 * breakdowns keep the values they had; test/unit/user-agent.test.ts compares both.
 */
const BROWSERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(?:crmo|crios)\//i, 'Chrome'],
  [/edg(?:e|ios|a)?\//i, 'Edge'],
  [/opera mini\//i, 'Opera Mini'],
  [/opios[/ ]/i, 'Opera Mini'],
  [/\bopr\/|\bopera\b/i, 'Opera'],
  [/\bddg\//i, 'DuckDuckGo'],
  [/ya(?:search)?browser\//i, 'Yandex'],
  [/\bvivaldi\//i, 'Vivaldi'],
  [/\bbrave\//i, 'Brave'],
  [/(?:\buc? ?browser|juc.+ucweb)[/ ]?/i, 'UCBrowser'],
  [/micromessenger\//i, 'WeChat'],
  [/trident.+rv[: ][\w.]{1,9}\b.+like gecko|(?:ms|\()ie [\w.]+/i, 'IE'],
  [/fxios\//i, 'Firefox'],
  [/samsungbrowser\//i, 'Samsung Internet'],
  [/(?:fban\/fbios|fb_iab\/fb4a)(?!.+fbav)|;fbav\//i, 'Facebook'],
  [/\binstagram[/ ]/i, 'Instagram'],
  [/\bsnapchat[/ ]/i, 'Snapchat'],
  [/\[linkedinapp\]/i, 'LinkedIn'],
  [/\bgsa\/[\w.]+ .*safari\//i, 'GSA'],
  [/musical_ly/i, 'TikTok'],
  [/headlesschrome(?:\/| )/i, 'Chrome Headless'],
  [/ wv\).+chrome\//i, 'Chrome WebView'],
  [/droid.+ version\/[\w.]+\b.+(?:mobile safari|safari)/i, 'Android Browser'],
  [/\bchromium[/ ]/i, 'Chromium'],
  [/\bchrome\/v?[\w.]/i, 'Chrome'],
  [/version\/[\w.,]+ .*mobile\/\w+ safari/i, 'Mobile Safari'],
  [/version\/[\w.,]+ .*mobile ?safari/i, 'Mobile Safari'],
  [/version\/[\w.,]+ .*safari/i, 'Safari'],
  [/mobile vr; rv:[\w.]+\).+firefox/i, 'Firefox Reality'],
  [/firefox\//i, 'Firefox'],
  [/(?:webkit|khtml)\//i, 'WebKit'],
];

/** OS name and version (the first capture group; `_` stands for `.` on Apple systems). */
const OSES: ReadonlyArray<readonly [RegExp, string]> = [
  [/windows phone(?: os)?[/ ]?([\d.]*)/i, 'Windows Phone'],
  [/windows nt ([\d.]+)|windows[/ ]([\d.]+)|\bwin(?:dows)? ?(?:9x|98|95|xp)\b/i, 'Windows'],
  [/[adehimnop]{4,7}\b(?:.*os ([\w]+) like mac|; opera)/i, 'iOS'],
  [/(?:ios;fbsv\/|iphone.+ios[/ ])([\d.]+)/i, 'iOS'],
  [/cfnetwork\/.+darwin/i, 'iOS'],
  [/mac os x ?([\w.]*)/i, 'Mac OS'],
  [/macintosh|mac_powerpc\b/i, 'Mac OS'],
  [/harmonyos/i, 'HarmonyOS'],
  [/android\w*[-/; ]?([\d.]*)/i, 'Android'],
  [/\bcros [\w]+(?:\)| ([\w.]+)\b)/i, 'Chromium OS'],
  [/\bubuntu\b(?:[-/ ]([\w.]*))?/i, 'Ubuntu'],
  [/\bfedora\b(?:[-/ ]([\w.]*))?/i, 'Fedora'],
  [/\bdebian\b(?:[-/ ]([\w.]*))?/i, 'Debian'],
  [/\b(?:x11|linux)\b/i, 'Linux'],
];

/** Windows NT versions as marketed (the subset ua-parser-js maps). */
const WINDOWS_VERSIONS: Record<string, string> = { '5.1': 'XP', '5.2': 'XP', '6.0': 'Vista', '6.1': '7', '6.2': '8', '6.3': '8.1', '6.4': '10', '10.0': '10' };

const TABLET = /\b(?:ipad|tablet|kindle|silk|playbook)\b|android(?!.*mobile)(?!.*\bwv\b)(?=.*\b(?:safari|chrome)\b)/i;
const MOBILE = /\b(?:iphone|ipod|mobile|phone|android.*mobile|blackberry|bb10|opera mini|iemobile)\b/i;

const matchOs = (ua: string): { name: string | null; version: string | null } => {
  for (const [pattern, name] of OSES) {
    const m = pattern.exec(ua);
    if (!m) continue;
    const raw = m.slice(1).find((g) => g !== undefined && g !== '') ?? null;
    const version = raw === null ? null : name === 'Windows' ? (WINDOWS_VERSIONS[raw] ?? raw) : raw.replace(/_/g, '.');
    return { name, version };
  }
  return { name: null, version: null };
};

/**
 * Classifies a user agent: bots by the `isbot` list (a well-kept crawler/unfurler list), then
 * device, platform, browser and OS by the small tables above. It replaces ua-parser-js (about
 * 20 KiB of the redirect bundle, docs/benchmarks.md): what the service decides with it (iOS /
 * Android / desktop routing, device type, browser and OS names for analytics) only needs the
 * mainstream agents. An empty user agent counts as a bot.
 */
export const parseUserAgent = (userAgent: string | undefined | null): ClientInfo => {
  const ua = (userAgent ?? '').slice(0, 1024);
  const os = matchOs(ua);
  const osName = os.name;
  const bot = ua.trim() === '' || isbot(ua);
  const platform: Platform =
    osName === 'iOS'
      ? 'ios'
      : osName === 'Android'
        ? 'android'
        : osName && /Windows|Mac OS|Linux|Ubuntu|Chromium OS|Fedora|Debian/.test(osName) && osName !== 'Windows Phone'
          ? 'desktop'
          : 'other';
  const formFactor = TABLET.test(ua) ? 'tablet' : MOBILE.test(ua) ? 'mobile' : null;
  const deviceType: DeviceType = bot
    ? 'bot'
    : formFactor ?? (platform === 'desktop' ? 'desktop' : platform === 'ios' || platform === 'android' ? 'mobile' : 'other');
  return {
    isBot: bot,
    deviceType,
    platform,
    browser: BROWSERS.find(([pattern]) => pattern.test(ua))?.[1] ?? null,
    os: osName,
    osMajor: os.version?.split('.')[0] ?? null,
  };
};
