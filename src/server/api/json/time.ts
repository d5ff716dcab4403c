/** Drone's API gives times in epoch seconds (0 = not yet); svc stores epoch milliseconds. */
export function seconds(milliseconds: number): number {
  return Math.floor(milliseconds / 1000);
}
