"""LLaMA-Factory's own chat templates, as data: what `template: NAME` in a training YAML makes of
a conversation. Each entry is one call of register_template in src/llamafactory/data/template.py
at hiyouga/LLaMA-Factory@ff6d4d1 (the strings are its slots, quoted as facts), with the defaults
that function fills in: a user's and a system's slot "{{content}}" (a system prompt is not
written in the user's slots), an assistant's "{{content}}" then the eos token (or, with
efficient_eos, "{{content}}" alone), a function call written in the assistant's slots with the
"default" tool format, an observation in the user's slots, no prefix,
the thought words ("<think>\\n", "\\n</think>\\n\\n"). render.py encodes a conversation with one.

A slot is a text (its "{{content}}" filled in, then tokenized as one string: the tokenizer finds
its added tokens in it), BOS or EOS (the tokenizer's bos or eos token, one token; bos only if the
tokenizer has one), or a Token (one added token by name)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Special:
    """A slot that is one token: the tokenizer's bos or eos, or an added token by name."""

    kind: str  # "bos", "eos" or "token"
    token: str = ""


BOS, EOS = Special("bos"), Special("eos")
Slots = tuple["str | Special", ...]
CHATML_USER = "<|im_start|>user\n{{content}}<|im_end|>\n<|im_start|>assistant\n"
CHATML_ASSISTANT = "{{content}}<|im_end|>\n"
CHATML_SYSTEM = "<|im_start|>system\n{{content}}<|im_end|>\n"
QWEN_OBSERVATION = "<|im_start|>user\n<tool_response>\n{{content}}\n</tool_response><|im_end|>\n<|im_start|>assistant\n"
LLAMA3_USER = "<|start_header_id|>user<|end_header_id|>\n\n{{content}}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
GEMMA_USER = "<start_of_turn>user\n{{content}}<end_of_turn>\n<start_of_turn>model\n"
GEMMA_OBSERVATION = "<start_of_turn>tool\n{{content}}<end_of_turn>\n<start_of_turn>model\n"
SOURCE = "src/llamafactory/data/template.py register_template(name={name!r})"


@dataclass(frozen=True)
class Template:
    name: str
    user: Slots = ("{{content}}",)
    assistant: Slots | None = None  # None: ("{{content}}", EOS), or ("{{content}}",) with efficient_eos
    system: Slots | None = None  # None: ("{{content}}",), register_template's default formatter (not the user's slots)
    function: Slots | None = None  # None: the assistant's slots
    observation: Slots | None = None  # None: the user's slots
    prefix: Slots = ()
    tool_format: str = "default"  # format_tools', and format_function's when the template gives that formatter
    default_system: str = ""
    stop_words: tuple[str, ...] = ()
    efficient_eos: bool = False
    replace_eos: bool = False
    reasoning: bool = False  # template_class=ReasoningTemplate: an empty thought is added to answers without one
    fused_system: bool = False  # template_class=Llama2Template: the system text opens the first user turn
    media: str = "base"  # its mm_plugin: what an image or a video becomes (base: none is allowed)

    @property
    def source(self) -> str:
        return SOURCE.format(name=self.name)

    @property
    def assistant_slots(self) -> Slots:
        return self.assistant if self.assistant is not None else ("{{content}}",) if self.efficient_eos else ("{{content}}", EOS)

    @property
    def system_slots(self) -> Slots:
        return self.system if self.system is not None else ("{{content}}",)

    @property
    def function_slots(self) -> Slots:
        return self.function if self.function is not None else self.assistant_slots

    @property
    def observation_slots(self) -> Slots:
        return self.observation if self.observation is not None else self.user

    @property
    def calls_format(self) -> str:
        """format_function's tool format: the template's, else register_template's default FunctionFormatter's."""
        return self.tool_format if self.function is not None else "default"


def _qwen(name: str, tools: str = "qwen", default_system: str = "", reasoning: bool = False, media: str = "base") -> Template:
    return Template(name, (CHATML_USER,), (CHATML_ASSISTANT,), (CHATML_SYSTEM,), (CHATML_ASSISTANT,), (QWEN_OBSERVATION,),
                    tool_format=tools, default_system=default_system, stop_words=("<|im_end|>",), replace_eos=True,
                    reasoning=reasoning, media=media)


def _gemma(name: str, stop_words: tuple[str, ...], efficient_eos: bool = False, media: str = "base") -> Template:
    return Template(name, (GEMMA_USER,), ("{{content}}<end_of_turn>\n",), ("{{content}}\n\n",), observation=(GEMMA_OBSERVATION,),
                    prefix=(BOS,), stop_words=stop_words, efficient_eos=efficient_eos, replace_eos=not efficient_eos,
                    fused_system=True, media=media)


TEMPLATES: dict[str, Template] = {t.name: t for t in (
    Template("alpaca", ("### Instruction:\n{{content}}\n\n### Response:\n",), ("{{content}}", EOS, "\n\n"),
             default_system="Below is an instruction that describes a task. Write a response that appropriately "
                            "completes the request.\n\n"),
    Template("chatml", (CHATML_USER,), (CHATML_ASSISTANT,), (CHATML_SYSTEM,),
             observation=("<|im_start|>tool\n{{content}}<|im_end|>\n<|im_start|>assistant\n",),
             stop_words=("<|im_end|>", "<|im_start|>"), replace_eos=True),
    Template("default", ("Human: {{content}}", EOS, "\nAssistant:"), ("{{content}}", EOS, "\n"),
             ("System: {{content}}", EOS, "\n")),
    Template("empty", assistant=("{{content}}",)),
    Template("deepseek", ("User: {{content}}\n\nAssistant:",), system=("{{content}}\n\n",), prefix=(BOS,)),
    Template("deepseek3", ("<｜User｜>{{content}}<｜Assistant｜>",), prefix=(BOS,)),
    Template("deepseekr1", ("<｜User｜>{{content}}<｜Assistant｜>",), prefix=(BOS,), reasoning=True),
    _gemma("gemma", ("<end_of_turn>",)),
    _gemma("gemma2", ("<eos>", "<end_of_turn>"), efficient_eos=True),
    _gemma("gemma3", ("<end_of_turn>",), media="gemma3"),
    Template("llama2", (BOS, "[INST] {{content}} [/INST]"), system=("<<SYS>>\n{{content}}\n<</SYS>>\n\n",), fused_system=True),
    Template("llama3", (LLAMA3_USER,), ("{{content}}<|eot_id|>",),
             ("<|start_header_id|>system<|end_header_id|>\n\n{{content}}<|eot_id|>",), ("{{content}}<|eot_id|>",),
             ("<|start_header_id|>ipython<|end_header_id|>\n\n{{content}}<|eot_id|>"
              "<|start_header_id|>assistant<|end_header_id|>\n\n",),
             prefix=(BOS,), tool_format="llama3", stop_words=("<|eot_id|>", "<|eom_id|>"), replace_eos=True),
    Template("llama4", ("<|header_start|>user<|header_end|>\n\n{{content}}<|eot|><|header_start|>assistant<|header_end|>\n\n",),
             ("{{content}}<|eot|>",), ("<|header_start|>system<|header_end|>\n\n{{content}}<|eot|>",), ("{{content}}<|eot|>",),
             ("<|header_start|>ipython<|header_end|>\n\n{{content}}<|eot|><|header_start|>assistant<|header_end|>\n\n",),
             prefix=(BOS,), tool_format="llama3", stop_words=("<|eot|>", "<|eom|>"), replace_eos=True, media="llama4"),
    Template("mistral", ("[INST] {{content}}[/INST]",), (" {{content}}", EOS), ("{{content}}\n\n",),
             ("[TOOL_CALLS] {{content}}", EOS), ('[TOOL_RESULTS] {"content": {{content}}}[/TOOL_RESULTS]',), prefix=(BOS,),
             tool_format="mistral", fused_system=True),
    Template("ministral", ("[INST]{{content}}[/INST]",), system=("{{content}}\n\n",), function=("[TOOL_CALLS]{{content}}", EOS),
             observation=('[TOOL_RESULTS]{"content": {{content}}}[/TOOL_RESULTS]',), prefix=(BOS,), tool_format="mistral",
             fused_system=True),
    Template("phi", ("<|user|>\n{{content}}<|end|>\n<|assistant|>\n",), ("{{content}}<|end|>\n",),
             ("<|system|>\n{{content}}<|end|>\n",), stop_words=("<|end|>",), replace_eos=True),
    Template("phi4", ("<|im_start|>user<|im_sep|>{{content}}<|im_end|><|im_start|>assistant<|im_sep|>",), ("{{content}}<|im_end|>",),
             ("<|im_start|>system<|im_sep|>{{content}}<|im_end|>",), stop_words=("<|im_end|>",), replace_eos=True),
    _qwen("qwen", default_system="You are Qwen, created by Alibaba Cloud. You are a helpful assistant."),
    _qwen("qwen2_vl", default_system="You are a helpful assistant.", media="qwen2_vl"),
    _qwen("qwen3", reasoning=True),
    _qwen("qwen3_nothink"),
    _qwen("qwen3_5", tools="qwen3_5", reasoning=True, media="qwen3_vl"),
    _qwen("qwen3_5_nothink", tools="qwen3_5", media="qwen3_vl"),
    _qwen("qwen3_6", tools="qwen3_5", reasoning=True, media="qwen3_vl"),
    Template("smollm", (CHATML_USER,), (CHATML_ASSISTANT,), (CHATML_SYSTEM,), stop_words=("<|im_end|>",)),
    Template("smollm2", (CHATML_USER,), (CHATML_ASSISTANT,), (CHATML_SYSTEM,), stop_words=("<|im_end|>",),
             default_system="You are a helpful AI assistant named SmolLM, trained by Hugging Face."),
    Template("vicuna", ("USER: {{content}} ASSISTANT:",),
             default_system="A chat between a curious user and an artificial intelligence assistant. The assistant gives "
                            "helpful, detailed, and polite answers to the user's questions."),
    Template("yi", (CHATML_USER,), (CHATML_ASSISTANT,), (CHATML_SYSTEM,), stop_words=("<|im_end|>",)),
    Template("zephyr", ("<|user|>\n{{content}}", EOS, "<|assistant|>\n"), system=("<|system|>\n{{content}}", EOS),
             default_system="You are Zephyr, a helpful assistant."),
)}

# every name register_template is called with at ff6d4d1: a name not here is LLaMA-Factory's
# "Template NAME does not exist."; a name here but not in TEMPLATES is one ftlint does not render
REGISTERED = frozenset((
    "alpaca", "bailing", "bailing_v2", "breeze", "chatglm3", "chatml", "chatml_de", "cohere", "cpm4", "dbrx", "deepseek",
    "deepseek3", "deepseekr1", "hy3", "deepseekcoder", "default", "dots_ocr", "empty", "ernie", "ernie_nothink", "ernie_vl",
    "exaone", "falcon", "falcon_h1", "fewshot", "gemma", "gemma2", "gemma3", "gemma3n", "gemma4", "gemma4n", "glm4",
    "glm4_moe", "glm4v", "glm4_5v", "glm_ocr", "glm4_7", "glmz1", "gpt_oss", "granite3", "granite3_vision", "granite4",
    "index", "hunyuan", "hunyuan_small", "hy_dense_1_8b", "hy_dense_7b", "intern2", "intern_vl", "intern_s1", "keye_vl",
    "kimi_vl", "lfm2", "lfm2_vl", "llama2", "llama2_zh", "llama3", "llama4", "mllama", "moonlight", "moss_vl", "llava",
    "llava_next", "llava_next_llama3", "llava_next_mistral", "llava_next_qwen", "llava_next_yi", "llava_next_video",
    "llava_next_video_mistral", "llava_next_video_yi", "mimo", "mimo_v2", "mimo_vl", "minicpm_v", "minicpm_v_4_6",
    "minicpm_o", "minimax1", "minimax2", "ministral", "mistral", "mistral_small", "ministral3", "olmo", "openchat",
    "openchat-3.6", "opencoder", "paligemma", "paligemma_chat", "phi", "phi_small", "phi4", "phi4_mini", "pixtral", "qwen",
    "qwen3", "qwen3_nothink", "qwen2_audio", "qwen2_omni", "qwen3_omni", "qwen3_omni_nothink", "qwen2_vl", "qwen3_vl",
    "qwen3_vl_nothink", "qwen3_5", "qwen3_5_nothink", "qwen3_6", "sailor", "seed_coder", "seed_oss", "smollm", "smollm2",
    "solar", "starchat", "telechat2", "vicuna", "video_llava", "xuanyuan", "yi", "yi_vl", "youtu", "youtu_vl", "yuan",
    "zephyr", "aeva",
))


__all__ = ["BOS", "EOS", "REGISTERED", "TEMPLATES", "Slots", "Special", "Template"]
