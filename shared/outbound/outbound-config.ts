/**
 * Environment of the outbound functions (set by lib/outbound-events.ts), read on first use.
 * Kept apart from the route functions' config: only the publisher and the delivery function
 * get these.
 */
export const outboundEnvNames = {
  busName: 'OUTBOUND_BUS_NAME',
  eventSource: 'OUTBOUND_EVENT_SOURCE',
  queueUrl: 'WEBHOOK_QUEUE_URL',
} as const;

export const outboundEnv = () => ({
  busName: process.env[outboundEnvNames.busName] || undefined,
  eventSource: process.env[outboundEnvNames.eventSource] || 'linkservice',
  queueUrl: process.env[outboundEnvNames.queueUrl] || undefined,
  region: process.env.AWS_REGION || 'us-east-1',
});
