// The loopback TCP proxy lives in lib/net so that the chaos run (bench/, built with the product)
// can use it too; tests keep importing it from here.
export { TcpProxy } from '../../lib/net/tcp-proxy.js';
