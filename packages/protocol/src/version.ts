/** Version of the service and agent; agents report theirs in hello. */
export const THRONG_VERSION = "0.1.0";
