export { REVIEW_RECORD_VERSION, SPOOL_KINDS, agreementOf } from "./record.ts";
export type { LabelRecord, ReviewLabelValue, SpoolClaim, SpoolDocument, SpoolEvidence, SpoolKind, SpoolRecord } from "./record.ts";
export { SEGMENT_PATTERN, appendLabel, currentLabels, labelsPath, readLabelRecords, readSpools, segmentFiles, segmentName } from "./spool-files.ts";
export type { SpoolRead } from "./spool-files.ts";
export { createSpoolWriter } from "./spool-writer.ts";
export type { SpoolAppendResult, SpoolFs, SpoolSkipReason, SpoolWriter, SpoolWriterOptions } from "./spool-writer.ts";
