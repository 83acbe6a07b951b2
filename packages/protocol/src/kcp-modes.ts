// KCP's tuning as kcp-go users know it: the (nodelay, interval, resend, nc) tuple of kcp-go's SetNoDelay and the
// named presets of kcptun (xtaci's tunnel built on kcp-go), and the protocol's own defaults for the rest.

/** The tuple kcp-go's `SetNoDelay(nodelay, interval, resend, nc)` takes. */
export interface KcpNoDelay {
  /** RTO floor 30 ms instead of 100, and each expiry adds half the RTO instead of a whole one. */
  nodelay: boolean;
  /** How often pending ACKs (and window probes) go out, in ms. */
  intervalMs: number;
  /** Resend a segment once this many later segments were acknowledged (fast retransmit); 0 is off. */
  resend: number;
  /** No congestion window: only the send window and the peer's receive window limit what is in flight. */
  nc: boolean;
}

/** The preset names, as kcptun's `--mode` spells them. */
export const KCP_MODE_NAMES = ["normal", "fast", "fast2", "fast3"] as const;
export type KcpModeName = (typeof KCP_MODE_NAMES)[number];

/** kcptun's presets: normal 0,40,2,1; fast 0,30,2,1; fast2 1,20,2,1; fast3 1,10,2,1. */
export const KCP_MODES: Readonly<Record<KcpModeName, KcpNoDelay>> = {
  normal: { nodelay: false, intervalMs: 40, resend: 2, nc: true },
  fast: { nodelay: false, intervalMs: 30, resend: 2, nc: true },
  fast2: { nodelay: true, intervalMs: 20, resend: 2, nc: true },
  fast3: { nodelay: true, intervalMs: 10, resend: 2, nc: true },
};

/** kcptun's default mode, and Throng's when a plan names none. */
export const DEFAULT_KCP_MODE: KcpModeName = "fast";
/** kcp-go's defaults (IKCP_MTU_DEF, IKCP_WND_SND, IKCP_WND_RCV). */
export const DEFAULT_KCP_MTU = 1400;
export const DEFAULT_KCP_WINDOW = 32;
/** Every KCP segment's header: conv u32, cmd u8, frg u8, wnd u16, ts u32, sn u32, una u32, len u32. */
export const KCP_OVERHEAD = 24;
/** A message-mode message is at most this many segments: frg is one byte. */
export const KCP_MAX_FRAGMENTS = 255;

/** The fields of a KCP target that tune the protocol (plan.ts's KcpTarget without host and port). */
export interface KcpTuning {
  mode?: KcpModeName | undefined;
  nodelay?: boolean | undefined;
  intervalMs?: number | undefined;
  resend?: number | undefined;
  nc?: boolean | undefined;
  mtu?: number | undefined;
  sendWindow?: number | undefined;
  receiveWindow?: number | undefined;
  ackNoDelay?: boolean | undefined;
  stream?: boolean | undefined;
  conv?: number | undefined;
}

/** Every setting of one KCP connection, defaults applied. */
export interface KcpSettings extends KcpNoDelay {
  mode: KcpModeName;
  mtu: number;
  sendWindow: number;
  receiveWindow: number;
  ackNoDelay: boolean;
  stream: boolean;
  /** A fixed conversation id, or undefined for one of its own per connection. */
  conv: number | undefined;
}

/** The mode's tuple with the plan's own nodelay, intervalMs, resend and nc over it, and the protocol's defaults. */
export function kcpSettings(tuning: KcpTuning): KcpSettings {
  const mode = tuning.mode ?? DEFAULT_KCP_MODE;
  const preset = KCP_MODES[mode];
  return {
    mode,
    nodelay: tuning.nodelay ?? preset.nodelay,
    intervalMs: tuning.intervalMs ?? preset.intervalMs,
    resend: tuning.resend ?? preset.resend,
    nc: tuning.nc ?? preset.nc,
    mtu: tuning.mtu ?? DEFAULT_KCP_MTU,
    sendWindow: tuning.sendWindow ?? DEFAULT_KCP_WINDOW,
    receiveWindow: tuning.receiveWindow ?? DEFAULT_KCP_WINDOW,
    ackNoDelay: tuning.ackNoDelay ?? false,
    stream: tuning.stream ?? false,
    conv: tuning.conv,
  };
}
