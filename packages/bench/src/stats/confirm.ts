import { getConfirmFloorPct, type TDirection } from '@clusterscope/schema';

/** How much worse (in %) a change is for a metric of this direction: positive is a regression. */
export const worsePct = (changePct: number, direction: TDirection) =>
  direction === 'higher' ? -changePct : changePct;

/**
 * The mean part of the confirmation rule (CONFIRM_RULE) for one metric: `changes` are its % changes in the
 * counted confirmation runs, each judged against the suspect's baseline. Confirmed when their mean is a
 * regression of at least getConfirmFloorPct(n).
 */
export function judgeConfirmationMean(
  changes: readonly number[],
  direction: TDirection,
): { confirmed: boolean; meanPct: number; floorPct: number } {
  const floorPct = getConfirmFloorPct(changes.length);
  if (!changes.length) return { confirmed: false, meanPct: 0, floorPct };
  const meanPct = changes.reduce((a, c) => a + c, 0) / changes.length;
  return { confirmed: worsePct(meanPct, direction) >= floorPct, meanPct, floorPct };
}
