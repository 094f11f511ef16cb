"""Training plans: pure arithmetic over the dataset's figures.

figures.py   the dataset's figures from the per-record frame
trainers.py  one strategy per trainer (a provider's job; the Hugging Face Trainer)
packing.py   TRL's best-fit-decreasing packing
estimate.py  the frozen Estimate
study.py     `ftlint plan`: the cost of a tuning study
"""
