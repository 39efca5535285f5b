import type { OutboundEvent } from './event-catalogue';

/**
 * Where every outbound event goes for operators: the stack's EventBridge bus (event-bus.ts), a
 * stand-in locally. A module of its own so that the composition root (shared/runtime/services.ts)
 * names the type without importing the implementation.
 */
export interface EventBus {
  put(events: OutboundEvent[]): Promise<void>;
}
