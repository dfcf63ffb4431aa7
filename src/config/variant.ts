import { ConfigError } from "./errors.ts";

/** The variant names `--variant` takes besides an exact file name. `quantized` is kept from earlier releases. */
export const VARIANT_NAMES = ["auto", "fp32", "int8", "fp16", "q4", "quantized"] as const;

const VARIANT_EXPECTED = `auto, fp32, int8, fp16, q4, quantized (the generic int8 graph), or a graph's file name such as onnx/model_quint8_avx2.onnx`;

/**
 * The variant, or a ConfigError naming `field`: one of VARIANT_NAMES, or a relative
 * "/"-separated path ending in .onnx (no "..", no leading "/" or "\").
 */
export function checkVariant(value: string, field = "variant"): string {
  if ((VARIANT_NAMES as readonly string[]).includes(value)) return value;
  const parts = value.split("/");
  // eslint-disable-next-line no-control-regex
  const safe = value.length <= 512 && !/[\u0000-\u001f\u007f\\]/.test(value) && !value.startsWith("/") && parts.every((p) => p !== "" && p !== "." && p !== "..");
  if (safe && value.endsWith(".onnx")) return value;
  throw new ConfigError(field, value, `expected ${VARIANT_EXPECTED}`);
}
