"""The exercise checkers, one module per chapter (`ch01` ... `ch08`, `ch05b` for chapter 5.1).

Each chapter's page imports its `check_*` functions; each checker runs a reader's answer beside the
`_reference_*` solution the page shows, through `inside_nn.exercises.harness`, and prints one line.
Two modules serve one chapter's checkers: `ch03_models` (the models chapter 3's answers run on) and
`simulated_devices` (chapter 6's accelerators, clock and queues, simulated on the CPU).
"""

# Each chapter's notebook (its file name without .ipynb) and the module of its checkers.
CHAPTERS = {
    "01_parameter_management": "ch01",
    "02_parameter_initialization": "ch02",
    "03_lazy_modules": "ch03",
    "03_meta_device": "ch03",
    "04_custom_layers": "ch04",
    "05_file_io": "ch05",
    "05_checkpoints_that_survive": "ch05b",
    "06_gpus": "ch06",
    "07_buffers_and_ddp": "ch07",
    "08_inspect_your_model": "ch08",
}
