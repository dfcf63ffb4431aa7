/** The part of onnxruntime-node this package uses: the types, apart from the loader, so the importer can be typed against them. */

/** A tensor, as far as this package reads one. */
export interface OnnxTensor {
  readonly dims: readonly number[];
  readonly data: unknown;
  /** The element type ("float32", "float16", …) where the runtime reports one. */
  readonly type?: string;
}

/** An inference session, as far as this package uses one. */
export interface OnnxSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Readonly<Record<string, OnnxTensor>>): Promise<Readonly<Record<string, OnnxTensor>>>;
  release(): Promise<void>;
}

export interface OnnxSessionOptions {
  readonly executionProviders?: readonly "cpu"[];
  readonly graphOptimizationLevel?: "disabled" | "basic" | "extended" | "all";
  readonly intraOpNumThreads?: number;
  readonly interOpNumThreads?: number;
}

/**
 * The part of onnxruntime-node this package uses, spelled out so that no exported type
 * names the optional package (consumers' declarations must compile without it).
 */
export interface OnnxRuntime {
  readonly InferenceSession: { create(path: string, options?: OnnxSessionOptions): Promise<OnnxSession> };
  readonly Tensor: new (type: "int64", data: BigInt64Array, dims: readonly number[]) => OnnxTensor;
  readonly env?: { readonly versions?: { readonly node?: string } };
}
