# %%
# The seed's first example: 24,000,000,000 bytes in GiB.
convert 24GB GiB
# %%
convert 14000000000B GiB   # 7e9 params at 16 bits
# %%
sheet "Llama-2-7B chat, inference, campaign A"
sheet "second sheet"
sheet
# %%
help convert
