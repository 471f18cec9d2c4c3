/** node-wpapi ships no types; its tests use it as the untyped client it is. */
declare module 'wpapi' {
  const WPAPI: any;
  export default WPAPI;
}
