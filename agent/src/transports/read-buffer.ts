/**
 * One read buffer for every load socket in the process (net's `onread`): reads are handled synchronously, one
 * at a time, so a buffer per socket would only cost memory, and the stream machinery per read is skipped.
 * What a socket's callback gets is a view of this buffer, valid until the callback returns.
 */
const SHARED_READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

/** The `onread` option for net.connect that hands each read to `onChunk` as a view of the shared buffer. */
export function sharedRead(onChunk: (chunk: Buffer) => void): { buffer: Buffer; callback: (bytes: number) => boolean } {
  return {
    buffer: SHARED_READ_BUFFER,
    callback(bytes) {
      onChunk(SHARED_READ_BUFFER.subarray(0, bytes));
      return true;
    },
  };
}
