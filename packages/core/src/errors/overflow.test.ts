import fc from "fast-check";
import { APIConnectionError, APIError } from "openai";
import { describe, expect, it } from "vitest";
import { isContextOverflowError, type OverflowTokens, parseOverflowTokens } from "./overflow.js";

// Error texts below are as providers send them (collected from public issue reports);
// ids, organisation names and request ids are shortened.

/** An OpenAI SDK error exactly as the SDK builds it from a response. */
function openaiError(status: number, body: object): unknown {
  return APIError.generate(status, body, undefined, new Headers());
}

/** The shape the Anthropic SDK throws: `status`, parsed body in `error`, message `"<status> <body>"`. */
function anthropicError(status: number, type: string, message: string): unknown {
  const body = {
    type: "error",
    error: { type, message },
    request_id: "req_011CVQe1dLrGNMJyE1ghG1av",
  };
  return Object.assign(new Error(`${status} ${JSON.stringify(body)}`), { status, error: body });
}

/** The shape AWS SDK v3 throws for Bedrock. */
function awsError(name: string, message: string, httpStatusCode: number): unknown {
  return Object.assign(new Error(message), {
    name,
    $fault: "client",
    $metadata: { httpStatusCode, requestId: "16fb0962-139d-4c70-ba9c-602d9630e854", attempts: 1 },
  });
}

interface Row {
  /** Who sends the wording (for a gateway: whose wording it relays). */
  provider: string;
  name: string;
  error: unknown;
  /** Expected from parseOverflowTokens; undefined when the provider gives no numbers. */
  tokens?: OverflowTokens;
}

const overflowRows: Row[] = [
  {
    provider: "OpenAI",
    name: "OpenAI chat completions (SDK error)",
    error: openaiError(400, {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    }),
    tokens: { limit: 128000, requested: 130532, excess: 2532 },
  },
  {
    provider: "OpenAI",
    name: "OpenAI with functions (Python SDK text)",
    error: `BadRequestError('Error code: 400 - {\\'error\\': {\\'message\\': "This model\\'s maximum context length is 128000 tokens. However, your messages resulted in 202868 tokens (202767 in the messages, 101 in the functions). Please reduce the length of the messages or functions.", \\'type\\': \\'invalid_request_error\\', \\'param\\': \\'messages\\', \\'code\\': \\'context_length_exceeded\\'}}')`,
    tokens: { limit: 128000, requested: 202868, excess: 74868 },
  },
  {
    provider: "OpenAI",
    name: "OpenAI completions (legacy wording)",
    error: new Error(
      "This model's maximum context length is 4097 tokens, however you requested 4226 tokens (4012 in your prompt; 256 for the completion). Please reduce your prompt; or completion length.",
    ),
    tokens: { limit: 4097, requested: 4226, excess: 129 },
  },
  {
    provider: "OpenAI",
    name: "OpenAI response body as a JSON string",
    error:
      '{"error":{"message":"This model\'s maximum context length is 4097 tokens. However, you requested 4268 tokens (4012 in the messages, 256 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}',
    tokens: { limit: 4097, requested: 4268, excess: 171, inputTokens: 4012 },
  },
  {
    provider: "OpenAI",
    name: "OpenAI Responses API (streamed error event)",
    error: {
      type: "error",
      sequence_number: 2,
      error: {
        type: "invalid_request_error",
        code: "context_length_exceeded",
        message:
          "Your input exceeds the context window of this model. Please adjust your input and try again.",
        param: "input",
      },
    },
  },
  {
    provider: "OpenAI",
    name: "OpenAI Responses API (message only)",
    error: new Error(
      "Your input exceeds the context window of this model. Please adjust your input and try again.",
    ),
  },
  {
    provider: "Azure OpenAI",
    name: "Azure OpenAI (azure-ai-inference text)",
    error:
      "(context_length_exceeded) This model's maximum context length is 128000 tokens. However, you requested 1124171 tokens (124171 in the messages, 1000000 in the completion). Please reduce the length of the messages or completion.\nCode: context_length_exceeded",
    tokens: { limit: 128000, requested: 1124171, excess: 996171, inputTokens: 124171 },
  },
  {
    provider: "Azure OpenAI",
    name: "Azure OpenAI (RequestFailedException)",
    error: {
      name: "RestError",
      statusCode: 400,
      code: "context_length_exceeded",
      message:
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 10383 tokens. Please reduce the length of the messages.",
    },
    tokens: { limit: 8192, requested: 10383, excess: 2191 },
  },
  {
    provider: "Anthropic",
    name: "Anthropic prompt too long",
    error: anthropicError(
      400,
      "invalid_request_error",
      "prompt is too long: 208764 tokens > 200000 maximum",
    ),
    tokens: { requested: 208764, limit: 200000, excess: 8764 },
  },
  {
    provider: "Anthropic",
    name: "Anthropic input plus max_tokens",
    error: anthropicError(
      400,
      "invalid_request_error",
      "input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000, decrease input length or `max_tokens` and try again",
    ),
    tokens: { requested: 210000, limit: 200000, excess: 10000, inputTokens: 190000 },
  },
  {
    provider: "Anthropic",
    name: "Anthropic input plus max_tokens (unformatted)",
    error:
      "input length and max_tokens exceed context limit: 90402 + 116650 > 204648, decrease input length or max_tokens and try again",
    tokens: { requested: 207052, limit: 204648, excess: 2404, inputTokens: 90402 },
  },
  {
    provider: "Anthropic",
    name: "Anthropic on Vertex, wrapped in a Google error body",
    error: {
      error: {
        code: 400,
        message:
          '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 200997 tokens \\u003e 200000 maximum"},"request_id":"req_vrtx_011CYh537A5wKS5uA7uh2J6n"}',
        status: "INVALID_ARGUMENT",
      },
    },
    tokens: { requested: 200997, limit: 200000, excess: 997 },
  },
  {
    provider: "Gemini / Vertex AI",
    name: "Gemini (REST body)",
    error:
      '{"error":{"code":400,"message":"The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).","status":"INVALID_ARGUMENT"}}',
    tokens: { requested: 1196265, limit: 1048575, excess: 147690 },
  },
  {
    provider: "Gemini / Vertex AI",
    name: "Gemini (google-genai ClientError text)",
    error: new Error(
      "400 INVALID_ARGUMENT. {'error': {'code': 400, 'message': 'The input token count (81881) exceeds the maximum number of tokens allowed (65536).', 'status': 'INVALID_ARGUMENT'}}",
    ),
    tokens: { requested: 81881, limit: 65536, excess: 16345 },
  },
  {
    provider: "Gemini / Vertex AI",
    name: "Gemini without the input count",
    error: {
      error: {
        code: 400,
        message: "The input token count exceeds the maximum number of tokens allowed (1048576).",
        status: "INVALID_ARGUMENT",
      },
    },
    tokens: { limit: 1048576 },
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock (AWS SDK ValidationException)",
    error: awsError("ValidationException", "Input is too long for requested model.", 400),
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock Converse stream (Continue log)",
    error:
      "Error processing Bedrock stream: The model returned the following errors: Input is too long for requested model.",
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock (boto3 text)",
    error:
      "An error occurred (validationException) when calling the InvokeModelWithResponseStream operation: Input is too long for requested model.",
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock relaying Anthropic",
    error: awsError(
      "ValidationException",
      "The model returned the following errors: prompt is too long: 200049 tokens > 200000 maximum",
      400,
    ),
    tokens: { requested: 200049, limit: 200000, excess: 49 },
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock Titan too many input tokens",
    error: awsError(
      "ValidationException",
      "400 Bad Request: Too many input tokens. Max input tokens: 8192, request input token count: 11038 ",
      400,
    ),
    tokens: { limit: 8192, requested: 11038, excess: 2846 },
  },
  {
    provider: "OpenRouter",
    name: "OpenRouter",
    error: {
      error: {
        message:
          'This endpoint\'s maximum context length is 131072 tokens. However, you requested about 141607 tokens (10535 of text input, 131072 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
        code: 400,
        metadata: { provider_name: "Chutes" },
      },
    },
    tokens: { limit: 131072, requested: 141607, excess: 10535 },
  },
  {
    provider: "OpenRouter",
    name: "OpenRouter through the OpenAI SDK",
    error: new Error(
      '400 This endpoint\'s maximum context length is 32768 tokens. However, you requested about 42832 tokens (42832 of text input). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
    ),
    tokens: { limit: 32768, requested: 42832, excess: 10064 },
  },
  {
    provider: "Mistral",
    name: "Mistral",
    error: {
      status: 400,
      body: '{"object":"error","message":"Prompt contains 40123 tokens and 0 draft tokens, too large for model with 32768 maximum context length","type":"invalid_request_message_error","param":null,"code":null}',
    },
    tokens: { requested: 40123, limit: 32768, excess: 7355 },
  },
  {
    provider: "DeepSeek",
    name: "DeepSeek",
    error: openaiError(400, {
      error: {
        message:
          "This model's maximum context length is 65536 tokens. However, you requested 66343 tokens (62247 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_request_error",
      },
    }),
    tokens: { limit: 65536, requested: 66343, excess: 807, inputTokens: 62247 },
  },
  {
    provider: "DeepSeek",
    name: "DeepSeek 128k (litellm text)",
    error:
      'litellm.ContextWindowExceededError: DeepseekException - {"error":{"message":"This model\'s maximum context length is 131072 tokens. However, you requested 131329 tokens (123137 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}',
    tokens: { limit: 131072, requested: 131329, excess: 257, inputTokens: 123137 },
  },
  {
    provider: "vLLM",
    name: "vLLM (OpenAI-compatible server)",
    error: {
      object: "error",
      message:
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      type: "BadRequestError",
      param: null,
      code: 400,
    },
    tokens: { limit: 4096, requested: 5000, excess: 904, inputTokens: 4000 },
  },
  {
    provider: "vLLM",
    name: "vLLM (newer wording with output tokens)",
    error:
      "This model's maximum context length is 262144 tokens. However, you requested 128000 output tokens and your prompt contains at least 134145 input tokens, for a total of at least 262145 tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=134145)",
    tokens: { limit: 262144, requested: 262145, excess: 1, inputTokens: 134145 },
  },
  {
    provider: "vLLM",
    name: "vLLM max_tokens check",
    error:
      "'max_tokens' or 'max_completion_tokens' is too large: 2000. This model's maximum context length is 4096 tokens and your request has 2104 input tokens (2000 > 4096 - 2104).",
    tokens: { limit: 4096, requested: 4104, excess: 8, inputTokens: 2104 },
  },
  {
    provider: "vLLM",
    name: "vLLM scheduler",
    error: "Input prompt (35247 tokens) is too long and exceeds limit of 1000",
    tokens: { requested: 35247, limit: 1000, excess: 34247 },
  },
  {
    provider: "SGLang",
    name: "SGLang",
    error: "Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens).",
    tokens: { requested: 160062, limit: 59862, excess: 100200 },
  },
  {
    provider: "llama.cpp",
    name: "llama.cpp server (400)",
    error:
      '{"error":{"code":400,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":14429,"n_ctx":8192}}',
    tokens: { requested: 14429, limit: 8192, excess: 6237 },
  },
  {
    provider: "llama.cpp",
    name: "llama.cpp server (parsed body)",
    error: {
      error: {
        code: 500,
        message:
          "the request exceeds the available context size. try increasing the context size or enable context shift",
        type: "exceed_context_size_error",
        n_prompt_tokens: 1407,
        n_ctx: 256,
      },
    },
    tokens: { requested: 1407, limit: 256, excess: 1151 },
  },
  {
    provider: "llama.cpp",
    name: "llama-cpp-python",
    error: new Error("Requested tokens (516) exceed context window of 512"),
    tokens: { requested: 516, limit: 512, excess: 4 },
  },
  {
    provider: "Ollama",
    name: "Ollama",
    error: { status: 400, body: '{"error":"the input length exceeds the context length"}' },
  },
  {
    provider: "LM Studio",
    name: "LM Studio (n_keep)",
    error: new Error(
      '400 {"error":"The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= n_ctx: 4096). Try to load the model with a larger context length, or provide a shorter input."}',
    ),
    tokens: { requested: 13055, limit: 4096, excess: 8959 },
  },
  {
    provider: "LM Studio",
    name: "LM Studio (context overflow policy)",
    error:
      "Trying to keep the first 111490 tokens when context the overflows. However, the model is loaded with context length of only 32768 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input.",
    tokens: { requested: 111490, limit: 32768, excess: 78722 },
  },
  {
    provider: "LM Studio",
    name: "LM Studio (older wording)",
    error: "Input length 1581 exceeds context length 1500",
    tokens: { requested: 1581, limit: 1500, excess: 81 },
  },
  {
    provider: "Groq",
    name: "Groq",
    error: openaiError(400, {
      error: {
        message: "Please reduce the length of the messages or completion.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    }),
  },
  {
    provider: "Cerebras",
    name: "Cerebras",
    error:
      "400 Please reduce the length of the messages or completion. Current length is 42328 while limit is 40000",
    tokens: { requested: 42328, limit: 40000, excess: 2328 },
  },
  {
    provider: "Together AI",
    name: "Together / Hugging Face TGI",
    error:
      "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 2048. Given: 2019 `inputs` tokens and 30 `max_new_tokens`",
    tokens: { limit: 2048, requested: 2049, excess: 1, inputTokens: 2019 },
  },
  {
    provider: "Cohere",
    name: "Cohere (v1)",
    error:
      "CohereError: too many tokens: total number of tokens (prompt and prediction) cannot exceed 2048 - received 6354. Try using a shorter prompt or a smaller max_tokens value.",
    tokens: { limit: 2048, requested: 6354, excess: 4306 },
  },
  {
    provider: "Cohere",
    name: "Cohere (v2)",
    error: {
      statusCode: 400,
      body: {
        message:
          "too many tokens: size limit exceeded by 11326 tokens. Try using shorter or fewer inputs, or setting prompt_truncation='AUTO'.",
      },
    },
    tokens: { excess: 11326 },
  },
  {
    provider: "xAI",
    name: "xAI",
    error: "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
    tokens: { limit: 131072, requested: 537812, excess: 406740 },
  },
  {
    provider: "Moonshot / Kimi",
    name: "Kimi (Moonshot)",
    error: openaiError(400, {
      error: {
        message:
          "Invalid request: Your request exceeded model token limit: 262144 (requested: 269030)",
        type: "invalid_request_error",
      },
    }),
    tokens: { limit: 262144, requested: 269030, excess: 6886 },
  },
  {
    provider: "Moonshot / Kimi",
    name: "Moonshot (v1)",
    error:
      "code: 400 - {'error': {'message': 'model max length exceeded, max length:8192', 'type': 'invalid_request_error'}}",
    tokens: { limit: 8192 },
  },
  {
    provider: "z.ai / Zhipu GLM",
    name: "Zhipu GLM (code 1261)",
    error: { status: 400, error: { code: "1261", message: "Prompt exceeds max length" } },
  },
  {
    provider: "z.ai / Zhipu GLM",
    name: "Zhipu GLM (Chinese)",
    error: '{"error":{"code":"1261","message":"Prompt 超长"}}',
  },
  {
    provider: "GitHub Copilot",
    name: "GitHub Copilot",
    error: {
      error: {
        message: "prompt token count of 133529 exceeds the limit of 128000",
        code: "model_max_prompt_tokens_exceeded",
      },
    },
    tokens: { requested: 133529, limit: 128000, excess: 5529 },
  },
  {
    provider: "Qwen / DashScope",
    name: "Alibaba DashScope (OpenAI-compatible)",
    error: {
      error: {
        code: "invalid_parameter_error",
        message:
          "<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 983616]",
        param: null,
        type: "invalid_request_error",
      },
      request_id: "81a373d6-28bd-9968-8335-e22a2127c41b",
    },
    tokens: { limit: 983616 },
  },
  {
    provider: "Qwen / DashScope",
    name: "Alibaba DashScope (native)",
    error:
      '{"code":"InvalidParameter","message":"Range of input length should be [1, 6000]","request_id":"x"}',
    tokens: { limit: 6000 },
  },
  {
    provider: "SiliconFlow",
    name: "SiliconFlow",
    error: {
      code: 20015,
      message: "number of input tokens (204703) has exceeded max_prompt_tokens (202752) limit.",
      data: null,
    },
    tokens: { requested: 204703, limit: 202752, excess: 1951 },
  },
  {
    provider: "Baidu ERNIE / Qianfan",
    name: "Baidu ERNIE",
    error: new Error("BadRequestError: prompt tokens too long"),
  },
  {
    provider: "MLX",
    name: "MLX server",
    error: "API Error: 400 Prompt exceeds maximum context length",
  },
  { provider: "Warp", name: "Warp", error: "Input exceeded context window limit" },
  { provider: "MiniMax", name: "MiniMax", error: "invalid params, context window exceeds limit" },
  {
    provider: "iFlytek Spark",
    name: "iFlytek Spark (10907)",
    error: "10907: token数量超过上限。对话历史+问题的字数太多，需要精简输入",
  },
  {
    provider: "Chinese-language gateways",
    name: "Chinese: 输入长度超过",
    error: "请求失败：输入长度超过模型最大上下文长度",
  },
  {
    provider: "Chinese-language gateways",
    name: "Chinese: 上下文长度超过",
    error: new Error("上下文长度超过限制，请精简对话后重试"),
  },
  {
    provider: "Chinese-language gateways",
    name: "Chinese: 超出最大长度",
    error: { message: "请求内容超出最大长度" },
  },
  {
    provider: "Chinese-language gateways",
    name: "Chinese: 超过模型最大上下文长度",
    error: "错误：超过模型最大上下文长度 131072",
    tokens: { limit: 131072 },
  },
  // --- Wordings added for issue 8 part 6 (sources beside each pattern in overflow-wordings.ts) ---
  {
    provider: "OpenAI",
    name: "OpenAI configured input limit (gpt-5 family)",
    error: new Error(
      "Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 509178 tokens.",
    ),
    tokens: { limit: 272000, requested: 509178, excess: 237178 },
  },
  {
    provider: "OpenAI",
    name: "OpenAI configured input limit (SDK error with code)",
    error: openaiError(400, {
      error: {
        message:
          "Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 305127 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    }),
    tokens: { limit: 272000, requested: 305127, excess: 33127 },
  },
  {
    provider: "Azure OpenAI",
    name: "Azure OpenAI (LiteLLM text)",
    error:
      "litellm.ContextWindowExceededError: AzureException ContextWindowExceededError - This model's maximum context length is 16385 tokens. However, your messages resulted in 31228 tokens. Please reduce the length of the messages.",
    tokens: { limit: 16385, requested: 31228, excess: 14843 },
  },
  {
    provider: "Anthropic",
    name: "Anthropic input plus max_tokens (i.e. form)",
    error: "input length and max_tokens exceed context limit (i.e 156321 + 48384 > 200000)",
    tokens: { requested: 204705, limit: 200000, excess: 4705, inputTokens: 156321 },
  },
  {
    provider: "Anthropic",
    name: "Anthropic request size over the context window",
    error: anthropicError(
      400,
      "invalid_request_error",
      "Request size exceeds model context window",
    ),
  },
  {
    provider: "Anthropic",
    name: "Anthropic request size over the context window (413)",
    error: anthropicError(413, "request_too_large", "Request size exceeds model context window"),
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock input token count over the input limit",
    error: "ValidationException: Input token count exceeds the maximum number of input tokens",
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock stream: input too long for this model",
    error: awsError("ModelStreamErrorException", "Input is too long for this model", 400),
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock Nova",
    error: awsError(
      "ValidationException",
      "The model returned the following errors: Input Tokens Exceeded: Number of input tokens exceeds maximum length. Please update the input to try again.",
      400,
    ),
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock Mantle (OpenAI Responses)",
    error:
      "Amazon Bedrock Mantle OpenAI Responses API error (400): invalid_prompt: prompt tokens (330095) exceed model maximum (278528) for base model abc",
    tokens: { requested: 330095, limit: 278528, excess: 51567 },
  },
  {
    provider: "Gemini / Vertex AI",
    name: "Vertex AI INVALID_ARGUMENT without figures",
    error: "INVALID_ARGUMENT: input exceeds the maximum number of tokens",
  },
  {
    provider: "Gemini / Vertex AI",
    name: "Vertex AI input token count over what the model supports",
    error: new Error(
      "400 Unable to submit request because the input token count is 3601938 but model only supports up to 1000000. Reduce the input token count and try again. You can also use the CountTokens API to calculate prompt token count and billable characters.",
    ),
    tokens: { requested: 3601938, limit: 1000000, excess: 2601938 },
  },
  {
    provider: "Gemini / Vertex AI",
    name: "Gemini input token count without figures",
    error: "The input token count exceeds the maximum number of tokens allowed.",
  },
  {
    provider: "Mistral",
    name: "Mistral (newer wording)",
    error: "Prompt 262280 > 262144 maximum context length",
    tokens: { requested: 262280, limit: 262144, excess: 136 },
  },
  {
    provider: "Mistral",
    name: "Mistral without draft tokens",
    error:
      'Mistral API error (400): {"object":"error","message":"Prompt contains 240000 tokens, too large for model with 128000 maximum context length","type":"invalid_request_message_error"}',
    tokens: { requested: 240000, limit: 128000, excess: 112000 },
  },
  {
    provider: "Cohere",
    name: "Cohere (v2) with the model's limit",
    error:
      "too many tokens: size limit exceeded by 713295 tokens. Try using shorter or fewer inputs. The limit for this model is 288000 tokens.",
    tokens: { excess: 713295, limit: 288000, requested: 1001295 },
  },
  {
    provider: "Groq",
    name: "Groq (SDK text)",
    error: new Error("400 Please reduce the length of the messages or completion."),
  },
  {
    provider: "Cerebras",
    name: "Cerebras current length only",
    error: "Current length is 132784 while limit is 131000",
    tokens: { requested: 132784, limit: 131000, excess: 1784 },
  },
  {
    provider: "Together AI",
    name: "Together input longer than the context length",
    error:
      "400 The input (516368 tokens) is longer than the model's context length (262144 tokens).",
    tokens: { requested: 516368, limit: 262144, excess: 254224 },
  },
  {
    provider: "Together AI",
    name: "Together without figures",
    error:
      "The input is longer than the model's context length trace_id: 39d8c3a5c6c91dbc8dd9055f0b37e084",
  },
  {
    provider: "Fireworks",
    name: "Fireworks prompt too long",
    error: openaiError(400, {
      error: {
        object: "error",
        type: "invalid_request_error",
        message: "The prompt is too long: 1000008, model maximum context length: 131071",
      },
    }),
    tokens: { requested: 1000008, limit: 131071, excess: 868937 },
  },
  {
    provider: "xAI",
    name: "xAI gRPC input_too_large",
    error:
      "API error (status 400 Bad Request): invalid-argument: Failed to start sampling: [input_too_large] The prompt is too long for this model's context window (541372 tokens > 500000 tokens)",
    tokens: { requested: 541372, limit: 500000, excess: 41372 },
  },
  {
    provider: "OpenRouter",
    name: "OpenRouter Poolside route",
    error:
      "Provider returned error: Input length 131393 exceeds the maximum allowed input length of 131040 tokens.",
    tokens: { requested: 131393, limit: 131040, excess: 353 },
  },
  {
    provider: "z.ai / Zhipu GLM",
    name: "z.ai model_context_window_exceeded",
    error: "model_context_window_exceeded",
  },
  {
    provider: "z.ai / Zhipu GLM",
    name: "z.ai stop reason surfaced as an error",
    error: new Error("Unhandled stop reason: model_context_window_exceeded"),
  },
  {
    provider: "z.ai / Zhipu GLM",
    name: "z.ai 1261 (international wording)",
    error: '400 {"code":"1261","message":"Prompt too long"}',
  },
  {
    provider: "Moonshot / Kimi",
    name: "Kimi (Go SDK text)",
    error:
      "error, status code: 400, message: Invalid request: Your request exceeded model token limit: 262144 (requested: 291351)",
    tokens: { limit: 262144, requested: 291351, excess: 29207 },
  },
  {
    provider: "Moonshot / Kimi",
    name: "Kimi input token length",
    error: { status: 400, message: "Input token length too long" },
  },
  {
    provider: "Qwen / DashScope",
    name: "OpenAI-compatible maximum context length in parentheses",
    error: "Error: 400 Input length (265330) exceeds model's maximum context length (262144).",
    tokens: { requested: 265330, limit: 262144, excess: 3186 },
  },
  {
    provider: "Ollama",
    name: "Ollama prompt too long",
    error: "400 `prompt too long; exceeded max context length by 100918 tokens`",
    tokens: { excess: 100918 },
  },
  {
    provider: "Ollama",
    name: "Ollama prompt too long (API error body)",
    error:
      'Ollama API error 400: {"StatusCode":400,"Status":"400 Bad Request","error":"prompt too long; exceeded max context length by 4 tokens"}',
    tokens: { excess: 4 },
  },
  {
    provider: "Ollama",
    name: "Ollama prompt is too long with figures",
    error: new Error(
      'Ollama HTTP 400: {"error":"The prompt is too long: 208863, model maximum context length: 202752"}',
    ),
    tokens: { requested: 208863, limit: 202752, excess: 6111 },
  },
  {
    provider: "Ollama",
    name: "Ollama input length over a stated context length",
    error: "the input length exceeds the context length of 4096",
    tokens: { limit: 4096 },
  },
  {
    provider: "vLLM",
    name: "vLLM V1 decoder prompt longer than the model length",
    error:
      "The decoder prompt (length 32838) is longer than the maximum model length of 32768. Make sure that `max_model_len` is no smaller than the number of text tokens.",
    tokens: { requested: 32838, limit: 32768, excess: 70 },
  },
  {
    provider: "vLLM",
    name: "vLLM request has N input tokens",
    error:
      "This model's maximum context length is 262144 tokens. However, your request has 1000010 input tokens. Please reduce the length of the input messages. None",
    tokens: { limit: 262144, requested: 1000010, excess: 737866 },
  },
  {
    provider: "SGLang",
    name: "SGLang requested token count",
    error:
      "Requested token count exceeds the model's maximum context length of 262144 tokens. You requested a total of 271206 tokens: 9062 tokens from the input messages and 262144 tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.",
    tokens: { limit: 262144, requested: 271206, excess: 9062 },
  },
  {
    provider: "SGLang",
    name: "SGLang through a LiteLLM fallback (503 wrapper)",
    error:
      "Error: 503 litellm.ServiceUnavailableError: litellm.MidStreamFallbackError: litellm.APIConnectionError: APIConnectionError: OpenAIException - Requested token count exceeds the model's maximum context length of 131072 tokens.",
    tokens: { limit: 131072 },
  },
  {
    provider: "llama.cpp",
    name: "llama.cpp context size exceeded during generation (500)",
    error: {
      error: { code: 500, message: "Context size has been exceeded.", type: "server_error" },
    },
  },
  {
    provider: "llama.cpp",
    name: "llama.cpp request over the available context size, with figures",
    error:
      "400 request (66202 tokens) exceeds the available context size (65536 tokens), try increasing it",
    tokens: { requested: 66202, limit: 65536, excess: 666 },
  },
  {
    provider: "llama.cpp",
    name: "llama-server body without the n_ fields",
    error:
      'vision model call failed: llama-server 400: {"error":{"code":400,"message":"request (5584 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error"}}',
    tokens: { requested: 5584, limit: 4096, excess: 1488 },
  },
  {
    provider: "llama.cpp",
    name: "DS4 server configured context size",
    error: "Prompt has 5,958,968 tokens, but the configured context size is 256,000 tokens",
    tokens: { requested: 5958968, limit: 256000, excess: 5702968 },
  },
  {
    provider: "LM Studio",
    name: "LM Studio context size exceeded",
    error:
      "Engine protocol predict stream returned an error: {code:500, message:'Context size has been exceeded'}",
  },
  {
    provider: "Hugging Face TGI",
    name: "TGI inputs over the input limit",
    error: "Input validation error: `inputs` must have less than 32768 tokens",
    tokens: { limit: 32768 },
  },
  {
    provider: "Hugging Face TGI",
    name: "TGI inputs over the input limit, with the given count",
    error: {
      status: 422,
      body: '{"error":"Input validation error: `inputs` must have less than 4096 tokens. Given: 5000","error_type":"validation"}',
    },
    tokens: { limit: 4096, requested: 5000, excess: 904 },
  },
  {
    provider: "Perplexity",
    name: "Perplexity total length of all messages",
    error: {
      error: {
        message: "The total length of all messages is too long.",
        type: "too_many_prompt_tokens",
        code: 400,
      },
    },
  },
  {
    provider: "Volcengine Ark / Doubao",
    name: "Doubao image and text tokens over the message limit",
    error: "InvalidParameter: Total tokens of image and text exceed max message tokens",
  },
  {
    provider: "MiniMax",
    name: "MiniMax with its code",
    error: "invalid params, context window exceeds limit (2013)",
  },
  {
    provider: "Chinese-language gateways",
    name: "Chinese: 上下文过长",
    error: "错误：上下文过长，请减少输入",
  },
  {
    provider: "Chinese-language gateways",
    name: "Chinese: 请压缩上下文",
    error: "请压缩上下文后重试",
  },
  {
    provider: "Chinese-language gateways",
    name: "Chinese: 输入内容超过模型最大上下文长度",
    error: { error: { message: "输入内容超过模型最大上下文长度" } },
  },
  // --- Wordings added for issue 18; each names where it was read ---
  {
    provider: "OpenAI Codex",
    // openai/codex codex-rs/protocol/src/error.rs, CodexErr::ContextWindowExceeded: what Codex
    // reports once the Responses API failed with code context_length_exceeded
    name: "Codex ran out of room in the context window",
    error: new Error(
      "Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying.",
    ),
  },
  {
    provider: "OpenAI Codex",
    // the same error in earlier Codex releases (peers' ports of its error constants)
    name: "Codex ran out of room (earlier wording)",
    error:
      "stream error: Codex ran out of room in the model's context window. Start a new conversation or clear earlier history before retrying.",
  },
  {
    provider: "OpenAI Codex",
    // Codex app-server v2 error notification: { error: { message, codexErrorInfo } }, where
    // CodexErrorInfo serialises as "contextWindowExceeded" (codex app-server protocol, v2)
    name: "Codex app-server error info without the message",
    error: { error: { message: "turn failed", codexErrorInfo: "contextWindowExceeded" } },
  },
  {
    provider: "LiteLLM proxy",
    // LiteLLM tests (test_extract_and_raise_context_window_exceeded_error): the proxy names its
    // exception class in the text it relays
    name: "LiteLLM ContextWindowExceededError relayed by name",
    error: "litellm.ContextWindowExceededError: Token limit exceeded",
  },
  {
    provider: "LiteLLM proxy",
    // LiteLLM tests, context_window_test_cases
    name: "input over the model's maximum context limit",
    error: "An error occurred: The input exceeds the model's maximum context limit of 8192 tokens.",
    tokens: { limit: 8192 },
  },
  {
    provider: "LiteLLM proxy",
    // LiteLLM tests, context_window_test_cases
    name: "prompt longer than the model's context length of N",
    error: "Your prompt is longer than the model's context length of 2048.",
    tokens: { limit: 2048 },
  },
  {
    provider: "Amazon Bedrock",
    // LiteLLM tests, context_window_test_cases
    name: "Bedrock request payload over the context limit",
    error: "AWS Bedrock Error: The request payload size has exceed context limit.",
  },
  {
    provider: "Gemini / Vertex AI",
    // LiteLLM tests: the Gemini 2.5/3 wording, the limit without parentheses
    name: "Gemini input token count over an unbracketed limit",
    error: "The input token count exceeds the maximum number of tokens allowed 1048576.",
    tokens: { limit: 1048576 },
  },
  {
    provider: "Gemini / Vertex AI",
    // LiteLLM tests: the same inside LiteLLM's GeminiException text
    name: "Gemini unbracketed limit inside a relayed body",
    error:
      'GeminiException BadRequestError - {\n  "error": {\n    "code": 400,\n    "message": "The input token count exceeds the maximum number of tokens allowed 1048576.",\n    "status": "INVALID_ARGUMENT"\n  }\n}\n',
    tokens: { limit: 1048576 },
  },
  {
    provider: "Hugging Face TGI",
    // LiteLLM tests: TGI's sum check without the "Given:" part
    name: "TGI inputs plus max_new_tokens, limit only",
    error: "`inputs` tokens + `max_new_tokens` must be <= 4096",
    tokens: { limit: 4096 },
  },
  {
    provider: "llama.cpp",
    // OpenClaw failover corpus (patterns-context-llamacpp-prompt)
    name: "llama.cpp prompt over the available context size",
    error:
      "prompt (8500 tokens) exceeds the available context size (8192 tokens), try increasing it",
    tokens: { requested: 8500, limit: 8192, excess: 308 },
  },
  {
    provider: "llama.cpp",
    // OpenClaw failover corpus (patterns-context-llamacpp-no-the): the request fits the figures
    // but the server counted otherwise; no excess is made up
    name: "llama.cpp request over available context size (no 'the')",
    error: "request (130000 tokens) exceeds available context size (131072 tokens)",
    tokens: { requested: 130000, limit: 131072 },
  },
  {
    provider: "llama.cpp",
    // llama.cpp tools/server/server-context.cpp: an embedding or rerank input that cannot be
    // split, typed exceed_context_size_error, without the n_ fields
    name: "llama.cpp input larger than the max context size",
    error:
      '{"error":{"code":400,"message":"input (1682 tokens) is larger than the max context size (1024 tokens). skipping","type":"exceed_context_size_error"}}',
    tokens: { requested: 1682, limit: 1024, excess: 658 },
  },
  {
    provider: "llama.cpp",
    // the same wording without its type, as a peer logged it
    name: "llama.cpp input larger than the max context size (text only)",
    error: "input (70000 tokens) is larger than the max context size (65536 tokens). skipping",
    tokens: { requested: 70000, limit: 65536, excess: 4464 },
  },
  {
    provider: "Lemonade",
    // LiteLLM tests (test_lemonade_context_window_error_mapping): llama.cpp behind Lemonade
    name: "Lemonade relaying llama.cpp",
    error:
      '{"error":{"code":"context_length_exceeded","message":"request (80010 tokens) exceeds the available context size (65536 tokens), try increasing it","status_code":400,"type":"invalid_request_error"}}',
    tokens: { requested: 80010, limit: 65536, excess: 14474 },
  },
  {
    provider: "vLLM",
    // vllm-project/vllm#12165 (the prompt, multimodal tokens included, longer than max_model_len)
    name: "vLLM prompt too long to fit into the model",
    error:
      "The prompt (total length 25938) is too long to fit into the model (context length 4096). Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens.",
    tokens: { requested: 25938, limit: 4096, excess: 21842 },
  },
  {
    provider: "vLLM",
    // the same as the OpenAI-compatible server's body (any-llm-client tests)
    name: "vLLM prompt too long to fit into the model (server body)",
    error: {
      status: 400,
      body: '{"object": "error", "message": "The prompt (total length 6287) is too long to fit into the model (context length 4096). Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens. For image inputs, the number of image tokens depends on the number of images, and possibly their aspect ratios as well.", "type": "BadRequestError", "param": null, "code": 400}',
    },
    tokens: { requested: 6287, limit: 4096, excess: 2191 },
  },
  {
    provider: "Cohere",
    // OpenClaw provider-error-patterns tests (its Cohere case)
    name: "Cohere total tokens over the model's maximum limit",
    error: "total tokens exceeds the model's maximum limit of 4096",
    tokens: { limit: 4096 },
  },
  {
    provider: "OpenAI-compatible servers",
    // OpenClaw failover corpus (billing-context-input-length-model-limit)
    name: "input length in tokens over the model limit",
    error: "input length 14295 tokens exceeds the model limit",
    tokens: { requested: 14295 },
  },
];

const notOverflowRows: Array<Omit<Row, "tokens">> = [
  {
    provider: "OpenAI",
    name: "OpenAI TPM rate limit (mentions tokens)",
    error: openaiError(429, {
      error: {
        message:
          "Rate limit reached for gpt-4o in organization org-uOtiSEwvUnroadaOnJJquBEC on tokens per min (TPM): Limit 30000, Used 29937, Requested 385. Please try again in 644ms. Visit https://platform.openai.com/account/rate-limits to learn more.",
        type: "tokens",
        param: null,
        code: "rate_limit_exceeded",
      },
    }),
  },
  {
    provider: "OpenAI",
    name: "OpenAI request larger than the TPM limit (text only)",
    error:
      "Request too large for gpt-4o in organization org-2itOgSdqw0DhUYp0QyLhttLL on tokens per min (TPM): Limit 30000, Requested 36278. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.",
  },
  {
    provider: "Groq",
    name: "Groq 413 over the TPM limit",
    error: {
      status: 413,
      message:
        "413 Request too large for model `moonshotai/kimi-k2-instruct` in organization `org_01hsjxygceejnvjd05wgz483z2` service tier `on_demand` on tokens per minute (TPM): Limit 10000, Requested 15088, please reduce your message size and try again. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing",
    },
  },
  {
    provider: "Anthropic",
    name: "Anthropic input-token rate limit",
    error: anthropicError(
      429,
      "rate_limit_error",
      "This request would exceed your organization's rate limit of 30,000 input tokens per minute (org: 80162711-722b, model: claude-opus-4-6). For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.",
    ),
  },
  {
    provider: "Anthropic",
    name: "Anthropic input-token rate limit (text only)",
    error:
      "This request would exceed your organization's rate limit of 30,000 input tokens per minute (org: 80162711-722b, model: claude-opus-4-6). Please reduce the prompt length or the maximum tokens requested, or try again later.",
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock throttling (Too many tokens)",
    error: awsError(
      "ThrottlingException",
      "Too many tokens, please wait before trying again.",
      429,
    ),
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock throttling (text only)",
    error: "ThrottlingException: Too many tokens per day, please wait before trying again.",
  },
  {
    provider: "Azure OpenAI",
    name: "Azure OpenAI token rate limit",
    error: {
      statusCode: 429,
      message:
        "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-02-01 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 6 seconds.",
    },
  },
  {
    provider: "OpenAI",
    name: "OpenAI insufficient quota",
    error: openaiError(429, {
      error: {
        message:
          "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
        type: "insufficient_quota",
        param: null,
        code: "insufficient_quota",
      },
    }),
  },
  {
    provider: "Gemini / Vertex AI",
    name: "Gemini free-tier quota on input tokens",
    error:
      '{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_input_token_count, limit: 250000, model: gemini-2.5-pro","status":"RESOURCE_EXHAUSTED"}}',
  },
  {
    provider: "DeepSeek",
    name: "DeepSeek insufficient balance",
    error: openaiError(402, { error: { message: "Insufficient Balance", type: "unknown_error" } }),
  },
  {
    provider: "OpenAI",
    name: "OpenAI invalid API key",
    error: openaiError(401, {
      error: {
        message:
          "Incorrect API key provided: sk-proj-****abcd. You can find your API key at https://platform.openai.com/account/api-keys.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
    }),
  },
  {
    provider: "Anthropic",
    name: "Anthropic authentication",
    error: anthropicError(401, "authentication_error", "invalid x-api-key"),
  },
  {
    provider: "Anthropic",
    name: "Anthropic overloaded",
    error: anthropicError(529, "overloaded_error", "Overloaded"),
  },
  {
    provider: "OpenAI",
    name: "OpenAI max_tokens above the output cap",
    error: openaiError(400, {
      error: {
        message:
          "max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.",
        type: "invalid_request_error",
        param: "max_tokens",
        code: null,
      },
    }),
  },
  {
    provider: "Anthropic",
    name: "Anthropic max_tokens above the output cap",
    error: anthropicError(
      400,
      "invalid_request_error",
      "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-20250514",
    ),
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock max_tokens above the model limit",
    error:
      '400 Bad Request {"message":"The maximum tokens you requested exceeds the model limit of 32768"}',
  },
  {
    provider: "Groq",
    name: "Groq max_tokens above the output cap",
    error:
      "400 max_tokens must be less than or equal to 16384, the maximum value for max_tokens is less than the context_window for this model",
  },
  {
    provider: "Baidu ERNIE / Qianfan",
    name: "Baidu Qianfan max_output_tokens range",
    error:
      '{"message":"parameter check failed, max_output_tokens range is [2, 2048]","success":false}',
  },
  {
    provider: "Anthropic",
    name: "Anthropic 413 request_too_large (bytes)",
    error: anthropicError(
      413,
      "request_too_large",
      "Request exceeds the maximum allowed number of bytes.",
    ),
  },
  {
    provider: "any provider",
    name: "Proxy 413 (bytes)",
    error: {
      status: 413,
      body: "<html><head><title>413 Request Entity Too Large</title></head><body><center><h1>413 Request Entity Too Large</h1></center><hr><center>nginx</center></body></html>",
    },
  },
  {
    provider: "Gemini / Vertex AI",
    name: "Gemini payload size (bytes)",
    error: "Request payload size exceeds the limit: 20971520 bytes.",
  },
  {
    provider: "OpenAI",
    name: "OpenAI string length limit (characters)",
    error: openaiError(400, {
      error: {
        message:
          "Invalid 'messages[1].content': string too long. Expected a string with maximum length 10485760, but got a string with length 10500000 instead.",
        type: "invalid_request_error",
        param: "messages[1].content",
        code: "string_above_max_length",
      },
    }),
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock body size constraint (bytes)",
    error: awsError(
      "ValidationException",
      "1 validation error detected: Value at 'body' failed to satisfy constraint: Member must have length less than or equal to 25000000",
      400,
    ),
  },
  {
    provider: "Anthropic",
    name: "Anthropic invalid request of another kind",
    error: anthropicError(
      400,
      "invalid_request_error",
      'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
    ),
  },
  {
    provider: "OpenAI",
    name: "OpenAI tool message without a call",
    error: openaiError(400, {
      error: {
        message:
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        type: "invalid_request_error",
        param: "messages.[2].role",
        code: null,
      },
    }),
  },
  {
    provider: "OpenAI",
    name: "OpenAI unknown model",
    error: openaiError(404, {
      error: {
        message: "The model `gpt-5-foo` does not exist or you do not have access to it.",
        type: "invalid_request_error",
        param: null,
        code: "model_not_found",
      },
    }),
  },
  {
    provider: "Azure OpenAI",
    name: "Azure content filter",
    error:
      "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
  },
  {
    provider: "any provider",
    name: "connection error",
    error: new APIConnectionError({ message: "Connection error." }),
  },
  { provider: "any provider", name: "fetch failure", error: new TypeError("fetch failed") },
  {
    provider: "any provider",
    name: "server error",
    error: openaiError(500, {
      error: { message: "The server had an error while processing your request." },
    }),
  },
  { provider: "any provider", name: "null", error: null },
  { provider: "any provider", name: "undefined", error: undefined },
  { provider: "any provider", name: "number", error: 400 },
  { provider: "any provider", name: "empty object", error: {} },
  { provider: "any provider", name: "empty string", error: "" },
  // --- Near-misses added for issue 8 part 6 ---
  {
    provider: "OpenRouter",
    name: "OpenRouter 402: prompt tokens over what the credits afford (text only)",
    error: "402 Prompt tokens limit exceeded: 329159 > 168823",
  },
  {
    provider: "OpenRouter",
    name: "OpenRouter 402: more credits or fewer max_tokens",
    error: {
      status: 402,
      error: {
        message:
          "This request requires more credits, or fewer max_tokens. You requested up to 32000 tokens, but can only afford 29281. To increase, visit https://openrouter.ai/settings/credits and upgrade to a paid account",
        code: 402,
      },
    },
  },
  {
    provider: "OpenRouter",
    name: "OpenRouter credits (text only)",
    error:
      "This request requires more credits, or fewer max_tokens. You requested up to 65536 tokens, but can only afford 18326.",
  },
  {
    provider: "Gemini / Vertex AI",
    name: "Vertex AI maxOutputTokens out of range (output only)",
    error:
      "400 Unable to submit request because it has a maxOutputTokens value of 100000 but the supported range is from 1 (inclusive) to 65537 (exclusive). Update the value and try again.",
  },
  {
    provider: "Gemini / Vertex AI",
    name: "Gemini cached content too small (mentions token counts)",
    error: {
      error: {
        code: 400,
        message: "Cached content is too small. total_token_count=1024, min_total_token_count=4096",
        status: "INVALID_ARGUMENT",
      },
    },
  },
  {
    provider: "DeepSeek",
    name: "DeepSeek max_tokens out of range (output only)",
    error: openaiError(400, {
      error: {
        message: "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]",
        type: "invalid_request_error",
        param: null,
        code: "invalid_request_error",
      },
    }),
  },
  {
    provider: "Hugging Face TGI",
    name: "TGI max_new_tokens over the cap (output only)",
    error: "Input validation error: `max_new_tokens` must be <= 4096. Given: 10000",
  },
  {
    provider: "Hugging Face TGI",
    name: "TEI inputs over a character limit",
    error:
      "Input validation error: `inputs` must have less than 2048000 characters. Given: 2100000",
  },
  {
    provider: "Fireworks",
    name: "Fireworks rate limit typed as an invalid request",
    error:
      'litellm.RateLimitError: RateLimitError: Fireworks_aiException - {"error":{"object":"error","type":"invalid_request_error","code":"invalid_request_error","message":"rate limit exceeded, please try again later"}}',
  },
  {
    provider: "Fireworks",
    name: "Fireworks overloaded",
    error: { status: 503, message: "service overloaded, please try again later" },
  },
  {
    provider: "Qwen / DashScope",
    name: "DashScope quota",
    error: {
      status: 429,
      error: { message: "Allocated quota exceeded, please increase your quota limit." },
    },
  },
  {
    provider: "Qwen / DashScope",
    name: "Alibaba request rate increased too quickly (a 400)",
    error: {
      status: 400,
      message:
        "Upstream error from Alibaba: Request rate increased too quickly. To ensure system stability, please adjust your client logic to scale requests more smoothly over time.",
    },
  },
  {
    provider: "Moonshot / Kimi",
    name: "Moonshot tokens-per-day rate limit (mentions a limit)",
    error: {
      error: {
        message:
          "Your account org-xxx request reached organization TPD rate limit, current: 1563502, limit: 1500000",
        type: "rate_limit_reached_error",
      },
    },
  },
  {
    provider: "Groq",
    name: "Groq tokens-per-day rate limit",
    error:
      "Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_01j` service tier `on_demand` on tokens per day (TPD): Limit 100000, Used 99000, Requested 5000. Please try again in 14m24s.",
  },
  {
    provider: "Cohere",
    name: "Cohere trial key rate limit",
    error: {
      statusCode: 429,
      body: { message: "You are using a Trial key, which is limited to 10 API calls / minute." },
    },
  },
  {
    provider: "z.ai / Zhipu GLM",
    name: "z.ai 1113 insufficient balance",
    error: { status: 429, error: { code: "1113", message: "余额不足或无可用资源包,请充值。" } },
  },
  {
    provider: "z.ai / Zhipu GLM",
    name: "z.ai 1305 busy (text only)",
    error: '{"error":{"code":"1305","message":"该模型当前访问量过大，请您稍后再试"}}',
  },
  {
    provider: "Chinese-language gateways",
    name: "Chinese: requests too frequent",
    error: "请求过于频繁，请稍后再试",
  },
  {
    provider: "Anthropic",
    name: "Anthropic long-context tier gate (429)",
    error: anthropicError(
      429,
      "rate_limit_error",
      "Extra usage is required for long context requests over 200k tokens",
    ),
  },
  {
    provider: "Anthropic",
    name: "Anthropic long-context beta not available (mentions context)",
    error: anthropicError(
      400,
      "invalid_request_error",
      "The long context beta is not yet available for this subscription.",
    ),
  },
  {
    provider: "Anthropic",
    name: "Anthropic image over 5 MB (bytes)",
    error: anthropicError(
      400,
      "invalid_request_error",
      "messages.1.content.0.image.source.base64: image exceeds 5 MB maximum: 6004000 bytes > 5242880 bytes",
    ),
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock throttling (formatted)",
    error: "Throttling error: Too many tokens, please wait before trying again.",
  },
  {
    provider: "Amazon Bedrock",
    name: "Bedrock service unavailable",
    error: awsError(
      "ServiceUnavailableException",
      "Service unavailable: The service is temporarily unavailable.",
      503,
    ),
  },
  {
    provider: "Ollama",
    name: "Ollama client timeout (context deadline exceeded)",
    error: new Error(
      'Post "http://127.0.0.1:11434/api/chat": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
    ),
  },
  {
    provider: "Ollama",
    name: "Ollama not enough memory",
    error: {
      status: 500,
      body: '{"error":"model requires more system memory (13.4 GiB) than is available (7.7 GiB)"}',
    },
  },
  {
    provider: "Ollama",
    name: "Ollama runner crash (5xx)",
    error: "500 `model runner crashed unexpectedly`",
  },
  {
    provider: "xAI",
    name: "gRPC message over the byte limit",
    error: "Sent message larger than max (50000056 vs. 20971520)",
  },
  {
    provider: "OpenAI",
    name: "OpenAI tools array too long",
    error: openaiError(400, {
      error: {
        message:
          "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 200 instead.",
        type: "invalid_request_error",
        param: "tools",
        code: "array_above_max_length",
      },
    }),
  },
  {
    provider: "any provider",
    name: "LiteLLM string-length validation (characters)",
    error: "Validation Error: string too long. expected a string with maximum length 1000.",
  },
  {
    provider: "Cerebras",
    name: "bodyless 400 (no wording to go by)",
    error: "400 status code (no body)",
  },
  {
    provider: "Cerebras",
    name: "bodyless 413 (no wording to go by)",
    error: { status: 413, message: "413 status code (no body)" },
  },
  {
    provider: "any provider",
    name: "Payload Too Large (bytes)",
    error: { status: 413, message: "Payload Too Large" },
  },
  {
    provider: "any provider",
    name: "an agent's own setting mentions the context window",
    error: "Model context window too small (4096 tokens). Minimum is 16000.",
  },
  {
    provider: "any provider",
    name: "rate limit with a retry hint",
    error: "Rate limit exceeded, please retry after 30 seconds.",
  },
  // --- Near-misses added for issue 18, each beside the wording it could be mistaken for ---
  {
    provider: "OpenAI Codex",
    // codex-rs/protocol/src/error.rs UsageLimitReachedError and CodexErrorInfo::UsageLimitExceeded
    name: "Codex usage limit (app-server error info)",
    error: {
      error: {
        message:
          "You've hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again later.",
        codexErrorInfo: "usageLimitExceeded",
      },
    },
  },
  {
    provider: "OpenAI Codex",
    // codex-rs/protocol/src/error.rs CodexErr::ServerOverloaded: the model has no room either
    name: "Codex model at capacity",
    error: "Selected model is at capacity. Please try a different model.",
  },
  {
    provider: "LiteLLM proxy",
    // LiteLLM tests, context_window_test_cases (negative)
    name: "a context that is large but acceptable",
    error: "The context is large, but acceptable.",
  },
  {
    provider: "OpenAI",
    // LiteLLM tests, context_window_test_cases (negative): a parameter's length in characters
    name: "OpenAI user parameter too long (characters)",
    error:
      "Invalid 'user': string too long. Expected a string with maximum length 64, but got a string with length 123 instead.",
  },
  {
    provider: "any provider",
    // Microsoft Office JS RequestPayloadSizeLimitExceeded: a payload limit with no context in it
    name: "request payload size over a limit (bytes, no context)",
    error: "The request payload size has exceeded the limit.",
  },
  {
    provider: "llama.cpp",
    // llama.cpp tools/server/server-context.cpp, a server error: the batch, not the context
    name: "llama.cpp input too large for the physical batch",
    error:
      "input (16255 tokens) is too large to process. increase the physical batch size (current batch size: 8192)",
  },
  {
    provider: "vLLM",
    // vLLM engine start-up (peers' logs): the configured length does not fit the KV cache
    name: "vLLM max seq len larger than the KV cache (start-up)",
    error:
      "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (93760). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
  },
  {
    provider: "vLLM",
    // vLLM engine start-up (peers' logs): a configuration error, not a request
    name: "vLLM max_model_len above the model's (start-up)",
    error:
      "ValueError: User-specified max_model_len (65536) is greater than the derived max_model_len (max_position_embeddings=32768 or model_max_length=None in model's config.json).",
  },
  {
    provider: "Gemini / Vertex AI",
    // google-gemini/gemini-cli#19083: the number of tools, not tokens
    name: "Gemini at most 512 function declarations",
    error: {
      error: {
        code: 400,
        message:
          "The GenerateContentRequest proto is invalid:\n  * tools[0].function_declarations: [FIELD_INVALID] At most 512 function declarations can be specified.",
        status: "INVALID_ARGUMENT",
      },
    },
  },
  {
    provider: "Gemini / Vertex AI",
    // google-gemini/gemini-cli#6031: "exceeds the maximum allowed", about a tool schema's depth
    name: "Gemini function declaration nesting depth",
    error:
      '{"error":{"code":400,"message":"A FunctionDeclaration in the request exceeds the maximum allowed nesting depth.","status":"INVALID_ARGUMENT"}}',
  },
  {
    provider: "any provider",
    // the output-cap wording peers' tests use: max_tokens, not the input, is over the limit
    name: "max_tokens exceeds the model limit (output only)",
    error: "400 Bad Request: max_tokens exceeds the model limit",
  },
  {
    provider: "Azure OpenAI",
    // Azure's count of messages (Portkey's error library): too many items, not too many tokens
    name: "Azure messages array too long (items)",
    error: "'$.messages' is too long. Maximum length is 2048, but got 4970 items.",
  },
  {
    provider: "LM Studio",
    // OpenClaw context-overflow tests: prompt-template guidance that mentions the prompt
    name: "LM Studio prompt template error",
    error:
      'Error rendering prompt with jinja template: "Cannot apply filter upper to type UndefinedValue". You can override the prompt template in model settings.',
  },
];

/** A row's expected figures: `inputTokens` is `requested` unless the row names the input's share. */
function expectedTokens(tokens: OverflowTokens | undefined): OverflowTokens | undefined {
  if (tokens === undefined || "inputTokens" in tokens || tokens.requested === undefined) {
    return tokens;
  }
  return { ...tokens, inputTokens: tokens.requested };
}

describe("isContextOverflowError and parseOverflowTokens on real provider errors", () => {
  const providers = [...new Set([...overflowRows, ...notOverflowRows].map((row) => row.provider))];
  for (const provider of providers) {
    describe(provider, () => {
      for (const row of overflowRows.filter((candidate) => candidate.provider === provider)) {
        it(`recognises ${row.name}`, () => {
          expect(isContextOverflowError(row.error)).toBe(true);
          expect(parseOverflowTokens(row.error)).toEqual(expectedTokens(row.tokens));
        });
      }
      for (const row of notOverflowRows.filter((candidate) => candidate.provider === provider)) {
        it(`rejects ${row.name}`, () => {
          expect(isContextOverflowError(row.error)).toBe(false);
          expect(parseOverflowTokens(row.error)).toBeUndefined();
        });
      }
    });
  }

  it("has overflow wordings of every provider the peers' suites cover", () => {
    const covered = new Set(overflowRows.map((row) => row.provider));
    for (const provider of [
      "OpenAI",
      "Azure OpenAI",
      "Anthropic",
      "Amazon Bedrock",
      "Gemini / Vertex AI",
      "Mistral",
      "Cohere",
      "Groq",
      "Cerebras",
      "Together AI",
      "Fireworks",
      "DeepSeek",
      "xAI",
      "OpenRouter",
      "z.ai / Zhipu GLM",
      "Moonshot / Kimi",
      "Qwen / DashScope",
      "Ollama",
      "vLLM",
      "llama.cpp",
      "LM Studio",
      "Hugging Face TGI",
      "Chinese-language gateways",
      "OpenAI Codex",
      "LiteLLM proxy",
    ]) {
      expect(covered).toContain(provider);
    }
  });
});

describe("inputTokens: the provider's count of the input alone", () => {
  it("separates the input from the output allowance where the wording adds them", () => {
    const cases: Array<[string, number, number]> = [
      // [wording, requested (input + output), input alone]
      [
        "input length and max_tokens exceed context limit (i.e 156321 + 48384 > 200000)",
        204705,
        156321,
      ],
      [
        "input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000, decrease input length or `max_tokens` and try again",
        210000,
        190000,
      ],
      [
        "This model's maximum context length is 262144 tokens. However, you requested 128000 output tokens and your prompt contains at least 134145 input tokens, for a total of at least 262145 tokens.",
        262145,
        134145,
      ],
      [
        "'max_tokens' or 'max_completion_tokens' is too large: 2000. This model's maximum context length is 4096 tokens and your request has 2104 input tokens (2000 > 4096 - 2104).",
        4104,
        2104,
      ],
      [
        "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 2048. Given: 2019 `inputs` tokens and 30 `max_new_tokens`",
        2049,
        2019,
      ],
      [
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
        5000,
        4000,
      ],
    ];
    for (const [wording, requested, input] of cases) {
      const tokens = parseOverflowTokens(wording);
      expect(tokens?.requested, wording).toBe(requested);
      expect(tokens?.inputTokens, wording).toBe(input);
    }
  });

  it("equals requested where the wording states the input alone", () => {
    for (const wording of [
      "prompt is too long: 208764 tokens > 200000 maximum",
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
      "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
    ]) {
      const tokens = parseOverflowTokens(wording);
      expect(tokens?.requested, wording).toBeGreaterThan(0);
      expect(tokens?.inputTokens, wording).toBe(tokens?.requested);
    }
  });

  it("is absent where the wording states only a total", () => {
    const tokens = parseOverflowTokens(
      "max_total_tokens (40000) must be less than or equal to max_seq_len (32768)",
    );
    expect(tokens?.requested).toBe(40000);
    expect(tokens?.inputTokens).toBeUndefined();
  });
});

describe("rules", () => {
  it("never treats a 429 as overflow, whatever the text says", () => {
    const error = { status: 429, message: "prompt is too long: 208764 tokens > 200000 maximum" };
    expect(isContextOverflowError(error)).toBe(false);
  });

  it("treats a 413 as overflow only when its text is a token overflow", () => {
    expect(isContextOverflowError({ status: 413, message: "Request Entity Too Large" })).toBe(
      false,
    );
    const tokens = { status: 413, message: "prompt is too long: 250000 tokens > 200000 maximum" };
    expect(isContextOverflowError(tokens)).toBe(true);
    expect(parseOverflowTokens(tokens)).toEqual({
      requested: 250000,
      inputTokens: 250000,
      limit: 200000,
      excess: 50000,
    });
  });

  it("follows Error causes", () => {
    const inner = anthropicError(
      400,
      "invalid_request_error",
      "prompt is too long: 201000 tokens > 200000 maximum",
    );
    const outer = new Error("summarizer call failed", { cause: inner });
    expect(isContextOverflowError(outer)).toBe(true);
    expect(parseOverflowTokens(outer)).toEqual({
      requested: 201000,
      inputTokens: 201000,
      limit: 200000,
      excess: 1000,
    });
    expect(
      isContextOverflowError(new Error("summarizer call failed", { cause: new Error("boom") })),
    ).toBe(false);
  });

  it("reads numbers with thousands separators", () => {
    expect(parseOverflowTokens("prompt is too long: 208,764 tokens > 200,000 maximum")).toEqual({
      requested: 208764,
      inputTokens: 208764,
      limit: 200000,
      excess: 8764,
    });
  });

  it("passes over figures it cannot use and reads the next wording's", () => {
    // A 400-digit limit is no number (Infinity); the figures stated beside it still count.
    const error = {
      message: `This model's maximum context length is ${"9".repeat(400)} tokens.`,
      body: "prompt is too long: 5 tokens > 4 maximum",
    };
    expect(parseOverflowTokens(error)).toEqual({
      requested: 5,
      inputTokens: 5,
      limit: 4,
      excess: 1,
    });
  });

  it("survives cycles, deep nesting, throwing getters and huge strings", () => {
    const cyclic: Record<string, unknown> = { message: "prompt is too long: 5 tokens > 4 maximum" };
    cyclic.self = cyclic;
    expect(isContextOverflowError(cyclic)).toBe(true);

    let deep: Record<string, unknown> = { message: "prompt is too long: 5 tokens > 4 maximum" };
    for (let i = 0; i < 50; i++) deep = { inner: deep };
    expect(isContextOverflowError(deep)).toBe(false); // beyond the depth it looks at

    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("no keys for you");
        },
      },
    );
    expect(isContextOverflowError(hostile)).toBe(false);
    const withGetter = Object.defineProperty({ status: 400 }, "message", {
      enumerable: true,
      get: () => {
        throw new Error("getter");
      },
    });
    expect(isContextOverflowError(withGetter)).toBe(false);

    const huge = `${"x".repeat(2_000_000)} prompt is too long`;
    expect(isContextOverflowError(huge)).toBe(false); // only the first 64k characters are read
    expect(isContextOverflowError(`prompt is too long ${"x".repeat(2_000_000)}`)).toBe(true);
  });

  // Each string pumps what follows a pattern's leading words, where a pattern with two
  // neighbouring quantifiers over the same characters backtracks quadratically: one such
  // pattern ("输入" then 60,000 spaces took 2.4 s per string) keeps this test from finishing.
  const RUN = 60_000;
  const hostileText = [
    ...["输入", "上下文", "提示词", "prompt", "token", "最大上下文长度"].flatMap((word) =>
      [" ", "\t"].map((pump) => word + pump.repeat(RUN)),
    ),
    `prompt ${"1".repeat(RUN)}`,
    `prompt has ${"1,".repeat(RUN / 2)} tokens`,
    `prompt tokens (${"1".repeat(RUN)}`,
    `input token count ${"x".repeat(RUN)}`,
    `input token count is ${"1".repeat(RUN)}`,
    `current length is ${"1".repeat(RUN)}`,
    `request (${"1".repeat(RUN)}`,
    `input (${"1".repeat(RUN)}`,
    `n_keep: ${"1".repeat(RUN)}${" ".repeat(RUN)}`,
    `size limit exceeded by ${"1".repeat(RUN)}`,
    `prompt (${"1".repeat(RUN)}`,
    `prompt (total length ${"1".repeat(RUN)}`,
    `input length ${"1,".repeat(RUN / 2)} token`,
    `maximum context limit of ${"1,".repeat(RUN / 2)}`,
    `exceeds the maximum number of tokens allowed (${"1".repeat(RUN)}`,
    `total tokens exceeds the model's maximum limit of ${" ".repeat(RUN)}`,
    `ran out of room in the model${"'".repeat(RUN)}`,
    "`".repeat(RUN),
    "1,".repeat(RUN / 2),
    " ".repeat(RUN),
  ];
  /** An error body carrying `count` fields, cycling through the hostile strings. */
  const hostileError = (count: number): Record<string, string> =>
    Object.fromEntries(
      Array.from({ length: count }, (_, index) => [
        `field${index}`,
        hostileText[index % hostileText.length] ?? "",
      ]),
    );

  it("stays linear-time on long hostile text that is not an overflow", () => {
    const error = hostileError(300);
    expect(isContextOverflowError(error)).toBe(false);
    expect(parseOverflowTokens(error)).toBeUndefined();
  });

  it("reads figures past long hostile text in linear time", () => {
    // The overflow comes last, so every figure reader scans every hostile string first.
    const error = {
      ...hostileError(60),
      // Hostile strings that are overflows themselves but state no figures.
      dashScope: `range of input length should be [1,${" ".repeat(RUN)}`,
      anthropic: `exceed context limit: ${"1".repeat(RUN)}`,
      tgi: `\`inputs\` tokens + \`max_new_tokens\` must be <= ${" ".repeat(RUN)}`,
      liteLlm: `longer than the model's context length of ${",".repeat(RUN)}`,
      last: "prompt is too long: 5 tokens > 4 maximum",
    };
    expect(isContextOverflowError(error)).toBe(true);
    expect(parseOverflowTokens(error)).toEqual({
      requested: 5,
      inputTokens: 5,
      limit: 4,
      excess: 1,
    });
  });

  it("stays linear and consistent on long runs of the providers' own words", () => {
    // Text made of the words real errors use, each repeated many times, with digits and
    // separators between: the shapes that make a careless pattern backtrack. Whatever comes
    // out, the figures must be whole numbers that agree with one another.
    const vocabulary = [
      ...new Set(
        [...overflowRows, ...notOverflowRows]
          .flatMap((row) => (typeof row.error === "string" ? row.error.split(/\s+/) : []))
          .filter((word) => word.length > 0),
      ),
    ];
    const piece = fc.oneof(
      fc.constantFrom(...vocabulary),
      fc.constantFrom(" ", "\t", "1", "1,", "(", "`", ":", "'", "上下文", "超过"),
    );
    const run = fc
      .tuple(piece, fc.integer({ min: 1, max: 400 }), fc.constantFrom("", " ", ", ", "\n"))
      .map(([text, times, gap]) => `${text}${gap}`.repeat(times));
    fc.assert(
      fc.property(fc.array(run, { minLength: 1, maxLength: 8 }), (runs) => {
        const text = runs.join(" ");
        const tokens = parseOverflowTokens(text);
        if (!isContextOverflowError(text)) expect(tokens).toBeUndefined();
        const { requested, limit, excess } = tokens ?? {};
        if (requested !== undefined && limit !== undefined && excess !== undefined) {
          expect(excess).toBe(requested - limit);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("reads figures only from overflows, and only whole non-negative numbers", () => {
    // Provider text around arbitrary figures and noise: whatever it says, the two functions
    // agree, and every figure read is a finite whole number.
    const wording = fc.constantFrom(
      ...overflowRows.flatMap((row) => (typeof row.error === "string" ? [row.error] : [])),
    );
    const digits = fc.stringMatching(/^[0-9][0-9,]{0,12}$/);
    const text = fc
      .tuple(fc.string(), wording, fc.array(digits, { maxLength: 3 }), fc.string())
      .map(
        ([before, said, numbers, after]) =>
          `${before}${said.replace(/\d+/g, () => numbers.shift() ?? "0")}${after}`,
      );
    fc.assert(
      fc.property(fc.oneof(text, fc.string()), (error) => {
        const tokens = parseOverflowTokens(error);
        if (!isContextOverflowError(error)) expect(tokens).toBeUndefined();
        for (const value of Object.values(tokens ?? {})) {
          expect(Number.isSafeInteger(value) && value >= 0).toBe(true);
        }
      }),
    );
  });

  it("does not parse numbers out of errors that are not overflow", () => {
    expect(
      parseOverflowTokens(
        "Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29937, Requested 385.",
      ),
    ).toBeUndefined();
  });
});
