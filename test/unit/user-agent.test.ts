import { describe, expect, it } from 'vitest';
import { parseUserAgent, type ClientInfo } from '@shared/clicks/user-agent';

type Row = [label: string, ua: string, expected: Omit<ClientInfo, 'isBot'>];

const bot = { deviceType: 'bot', platform: 'other', browser: null, os: null, osMajor: null } as const;

/**
 * The user agents that matter to a link service: current iOS / Android / desktop browsers, the
 * in-app browsers of the big social apps, crawlers and unfurlers, and SDK clients. Expected
 * values are written out (ua-parser-js 1.x names; isbot for bots).
 */
const rows: Row[] = [
  [
    'iOS Safari',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    { deviceType: 'mobile', platform: 'ios', browser: 'Mobile Safari', os: 'iOS', osMajor: '18' },
  ],
  [
    'iOS Chrome',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/130.0.6723.90 Mobile/15E148 Safari/604.1',
    { deviceType: 'mobile', platform: 'ios', browser: 'Chrome', os: 'iOS', osMajor: '18' },
  ],
  [
    'iPad Safari',
    'Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
    { deviceType: 'tablet', platform: 'ios', browser: 'Mobile Safari', os: 'iOS', osMajor: '17' },
  ],
  [
    'Android Chrome',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36',
    { deviceType: 'mobile', platform: 'android', browser: 'Chrome', os: 'Android', osMajor: '14' },
  ],
  [
    'Samsung Internet',
    'Mozilla/5.0 (Linux; Android 14; SM-S928B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
    { deviceType: 'mobile', platform: 'android', browser: 'Samsung Internet', os: 'Android', osMajor: '14' },
  ],
  [
    'Android tablet',
    'Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
    { deviceType: 'tablet', platform: 'android', browser: 'Chrome', os: 'Android', osMajor: '13' },
  ],
  [
    'Android Firefox',
    'Mozilla/5.0 (Android 14; Mobile; rv:131.0) Gecko/131.0 Firefox/131.0',
    { deviceType: 'mobile', platform: 'android', browser: 'Firefox', os: 'Android', osMajor: '14' },
  ],
  [
    'Windows Chrome',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
    { deviceType: 'desktop', platform: 'desktop', browser: 'Chrome', os: 'Windows', osMajor: '10' },
  ],
  [
    'Windows Edge',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edg/130.0.0.0',
    { deviceType: 'desktop', platform: 'desktop', browser: 'Edge', os: 'Windows', osMajor: '10' },
  ],
  [
    'Windows Firefox',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:131.0) Gecko/20100101 Firefox/131.0',
    { deviceType: 'desktop', platform: 'desktop', browser: 'Firefox', os: 'Windows', osMajor: '10' },
  ],
  [
    'macOS Safari',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
    { deviceType: 'desktop', platform: 'desktop', browser: 'Safari', os: 'Mac OS', osMajor: '10' },
  ],
  [
    'Linux Chrome',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
    { deviceType: 'desktop', platform: 'desktop', browser: 'Chrome', os: 'Linux', osMajor: null },
  ],
  [
    'ChromeOS',
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
    { deviceType: 'desktop', platform: 'desktop', browser: 'Chrome', os: 'Chromium OS', osMajor: '14541' },
  ],
  [
    'Facebook iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBDV/iPhone14,5;FBMD/iPhone;FBSN/iOS;FBSV/17.2;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5]',
    { deviceType: 'mobile', platform: 'ios', browser: 'Facebook', os: 'iOS', osMajor: '17' },
  ],
  [
    'Facebook Android',
    'Mozilla/5.0 (Linux; Android 14; Pixel 7 Build/UQ1A.240205.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/121.0.6167.178 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/449.0.0.41.111;]',
    { deviceType: 'mobile', platform: 'android', browser: 'Facebook', os: 'Android', osMajor: '14' },
  ],
  [
    'Instagram iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 315.0.0.29.109 (iPhone15,3; iOS 17_3; en_US; en; scale=3.00; 1290x2796; 556133176)',
    { deviceType: 'mobile', platform: 'ios', browser: 'Instagram', os: 'iOS', osMajor: '17' },
  ],
  [
    'Instagram Android',
    'Mozilla/5.0 (Linux; Android 14; SM-G991B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/122.0.6261.64 Mobile Safari/537.36 Instagram 321.0.0.39.106 Android (34/14; 420dpi; 1080x2400; samsung; SM-G991B; o1s; exynos2100; en_US; 577210397)',
    { deviceType: 'mobile', platform: 'android', browser: 'Instagram', os: 'Android', osMajor: '14' },
  ],
  [
    'TikTok',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_32.5.0 JsSdk/2.0 NetType/WIFI Channel/App Store ByteLocale/en Region/US',
    { deviceType: 'mobile', platform: 'ios', browser: 'TikTok', os: 'iOS', osMajor: '17' },
  ],
  [
    'Snapchat',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Snapchat/12.70.0.37 (like Safari/8617.1.17.10.7, panda)',
    { deviceType: 'mobile', platform: 'ios', browser: 'Snapchat', os: 'iOS', osMajor: '17' },
  ],
  [
    'LinkedIn',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.29.5990',
    { deviceType: 'mobile', platform: 'ios', browser: 'LinkedIn', os: 'iOS', osMajor: '17' },
  ],
  [
    'WeChat',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.47(0x18002f2c) NetType/WIFI Language/zh_CN',
    { deviceType: 'mobile', platform: 'ios', browser: 'WeChat', os: 'iOS', osMajor: '17' },
  ],
  [
    'X (Twitter) iOS',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Twitter for iPhone/10.30',
    { deviceType: 'mobile', platform: 'ios', browser: 'Twitter', os: 'iOS', osMajor: '17' },
  ],
  [
    'Android app (Dalvik)',
    'Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/AP1A.240305.019)',
    { deviceType: 'mobile', platform: 'android', browser: null, os: 'Android', osMajor: '14' },
  ],
  [
    'iOS app (CFNetwork)',
    'MyApp/3.2 CFNetwork/1490.0.4 Darwin/23.2.0',
    { deviceType: 'mobile', platform: 'ios', browser: null, os: 'iOS', osMajor: null },
  ],
];

/** Crawlers, unfurlers and clients with no browser or device: all bots. */
const bots = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  'Twitterbot/1.0',
  'WhatsApp/2.23.20.0',
  'okhttp/4.12.0',
  'curl/8.4.0',
  'node',
  '',
  '   ',
];

describe('parseUserAgent (ua-parser-js 1.x + isbot)', () => {
  it.each(rows)('%s', (_label, ua, expected) => {
    expect(parseUserAgent(ua)).toEqual({ isBot: false, ...expected });
  });

  it.each(bots)('bot: %j', (ua) => {
    expect(parseUserAgent(ua)).toEqual({ isBot: true, ...bot });
  });

  it('treats a missing user agent as a bot', () => {
    expect(parseUserAgent(undefined)).toEqual({ isBot: true, ...bot });
    expect(parseUserAgent(null)).toEqual({ isBot: true, ...bot });
  });

  it('reads only the first 1,024 characters', () => {
    const long = `${rows[7]![1]}${' x'.repeat(2000)}`;
    expect(parseUserAgent(long)).toEqual(parseUserAgent(long.slice(0, 1024)));
  });
});
