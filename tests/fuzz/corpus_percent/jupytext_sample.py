# -*- coding: utf-8 -*-
# %% [markdown]
# # A sample for the converter
#
# Two paragraphs, the second with `code` and a list:
#
# - one
# - two

# %%
sheet "sample"
model m params=7e9
format bf16

# %% [markdown]
# Non-ASCII text: 24 GB ≈ 22.35 GiB — façade, naïve.

# %%
length 4096

concurrency 1

# %%

# %%
weights


# %% [raw]
# a raw cell
# kept as it is

# %%
# a comment line first
envelope

# %% [markdown]
# The end.
