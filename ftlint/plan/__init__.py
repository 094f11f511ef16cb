"""Training plans: pure arithmetic over the dataset's figures.

figures.py   the dataset's figures from the per-record frame
packing.py   TRL's best-fit-decreasing packing
estimate.py  the frozen Estimate (the trainer's step arithmetic: ftlint/trainers/steps.py)
study.py     `ftlint plan`: the cost of a tuning study
"""
