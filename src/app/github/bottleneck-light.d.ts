// The light build (no Redis clustering) is what both Octokit plugins load; its API is the full build's.
declare module 'bottleneck/light.js' {
  import Bottleneck from 'bottleneck';
  export default Bottleneck;
}
