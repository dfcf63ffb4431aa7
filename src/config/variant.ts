import { ConfigError } from "./errors.ts";
import { isSafeRelativePath } from "./safe-path.ts";

/** The variant names `--variant` takes besides an exact file name. `quantized` is kept from earlier releases. */
export const VARIANT_NAMES = ["auto", "fp32", "int8", "fp16", "q4", "quantized"] as const;

const VARIANT_EXPECTED = `auto, fp32, int8, fp16, q4, quantized (the generic int8 graph), or a graph's file name such as onnx/model_quint8_avx2.onnx`;

/**
 * The variant, or a ConfigError naming `field`: one of VARIANT_NAMES, or a relative
 * "/"-separated path ending in .onnx (see isSafeRelativePath: no "..", no leading "/", "\" or drive).
 */
export function checkVariant(value: string, field = "variant"): string {
  if ((VARIANT_NAMES as readonly string[]).includes(value)) return value;
  if (isSafeRelativePath(value) && value.endsWith(".onnx")) return value;
  throw new ConfigError(field, value, `expected ${VARIANT_EXPECTED}`);
}
